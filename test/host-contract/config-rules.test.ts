/**
 * The words of config problems shared by the plugin and the host: edit distance,
 * the "did you mean" threshold, the rule sentences and the reading order.
 */
import { closestKey, editDistance, problemLine, RULES, sortProblems, unknownKeyRule } from "../../src/host-contract/config-rules";

describe("editDistance (optimal string alignment)", () => {
  it.each<[string, string, number]>([
    ["token", "token", 0],
    ["tokn", "token", 1],
    ["tokne", "token", 1],
    ["pth", "path", 1],
    ["maxConcurent", "maxConcurrent", 1],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
  ])("%s → %s = %d", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
    expect(editDistance(b, a)).toBe(d);
  });
});

describe("closestKey", () => {
  const keys = ["enabled", "token", "path", "mappings", "to", "allowQueryToken"];
  it.each<[string, string | undefined]>([
    ["tokn", "token"],
    ["Token", "token"],
    ["ENABLED", "enabled"],
    ["mapings", "mappings"],
    ["allowQueryTokens", "allowQueryToken"],
    ["x", undefined],
    ["window", undefined],
    ["nope", undefined],
    ["tkn", undefined],
  ])("%s → %s", (key, meant) => {
    expect(closestKey(key, keys)).toBe(meant);
  });
});

describe("unknownKeyRule", () => {
  it("suggests the key meant under its parent, else lists the known keys", () => {
    expect(unknownKeyRule("hooks", "tokn", ["enabled", "token"])).toBe("is not a known key (did you mean hooks.token?)");
    expect(unknownKeyRule("", "prot", ["port"])).toBe("is not a known key (did you mean port?)");
    expect(unknownKeyRule("hooks.idempotency", "window", ["ttlSeconds"])).toBe("is not a known key; known keys here: ttlSeconds");
    expect(unknownKeyRule("x", "y", [])).toBe("is not a known key");
  });
});

describe("RULES", () => {
  it("words types, bounds and lengths", () => {
    expect(RULES.type(["integer"])).toBe("must be an integer");
    expect(RULES.type(["string", "number"])).toBe("must be a string or a number");
    expect(RULES.type(["boolean"])).toBe("must be a boolean (true or false)");
    expect(RULES.minLength(1)).toBe("must not be empty");
    expect(RULES.minLength(3)).toBe("must be at least 3 characters long");
    expect(RULES.minItems(1)).toBe("must contain at least 1 entry");
    expect(RULES.maxItems(2)).toBe("must contain at most 2 entries");
    expect(RULES.oneOf(["wake", "agent"])).toBe("must be one of: wake, agent");
  });
});

describe("sortProblems", () => {
  it("orders by key (indices numerically, a key before the keys inside it), then rule, without repeats", () => {
    const sorted = sortProblems([
      { key: "hooks.token", rule: "b" },
      { key: "hooks.mappings[10].id", rule: "a" },
      { key: "hooks.mappings[2].id", rule: "a" },
      { key: "hooks.mappings", rule: "a" },
      { key: "hooks.maxBodyBytes", rule: "a" },
      { key: "hooks.token", rule: "a" },
      { key: "hooks.token", rule: "b" },
    ]).map(problemLine);
    expect(sorted).toEqual(["hooks.mappings a", "hooks.mappings[2].id a", "hooks.mappings[10].id a", "hooks.maxBodyBytes a", "hooks.token a", "hooks.token b"]);
  });
});
