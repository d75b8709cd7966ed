/**
 * The gateway judges a plugin's config section with the manifest's JSON Schema
 * before any plugin code runs and reports every problem, sorted by key; a rule
 * a keyword cannot say (a `pattern`, a conditional `required`, an alternative)
 * is reported with the node's `x-rule`, never with a regular expression (SPEC §3).
 * That the hooks plugin's lines are joi's own is checked in
 * test/config/problems-agree.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import { createRuleAjv, describeAjvErrors } from "../../../src/gateway/config/ajv-errors";
import type { PluginManifest } from "../../../src/gateway/plugins/manifest";
import { checkPluginConfig } from "../../../src/gateway/plugins/plugin-config";

const ROOT = path.resolve(__dirname, "../../..");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "plugin.json"), "utf8")) as PluginManifest;
const BAD = path.join(ROOT, "test", "fixtures", "config", "bad");

function gatewayLines(section: unknown): string[] {
  return checkPluginConfig(manifest, { hooks: section }).map((p) => `${p.key} ${p.rule}`);
}

const badFixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(BAD, `${name}.json`), "utf8"));

describe("checkPluginConfig (the hooks plugin's manifest)", () => {
  it("an absent section, or a manifest without a schema, has no problem", () => {
    expect(checkPluginConfig(manifest, {})).toEqual([]);
    expect(checkPluginConfig({ ...manifest, configSchema: undefined }, { hooks: 5 })).toEqual([]);
  });

  it("reports every problem of the section, sorted by key (regression: only the first was reported)", () => {
    expect(gatewayLines({ enabled: true, maxBodyBytes: 0 })).toEqual([
      "hooks.maxBodyBytes must be at least 1",
      "hooks.token is required when hooks.enabled is true",
    ]);
  });

  it("suggests the key meant for an unknown key, at every depth", () => {
    expect(gatewayLines({ tokn: "0123456789abcdef", mappings: [{ mach: { path: "a" }, messageTemplate: "m" }] })).toEqual([
      "hooks.mappings[0].mach is not a known key (did you mean hooks.mappings[0].match?)",
      "hooks.tokn is not a known key (did you mean hooks.token?)",
    ]);
  });

  it("no bad fixture is reported with a regular expression or ajv's wording", () => {
    const files = fs.readdirSync(BAD).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(40);
    for (const f of files) {
      const lines = gatewayLines(badFixture(f.replace(/\.json$/, "")));
      expect({ f, n: lines.length > 0 }).toEqual({ f, n: true });
      for (const line of lines) expect({ f, line }).toEqual({ f, line: expect.not.stringMatching(/match pattern|must NOT|must match|\^|\\[sSdw]|<=|>=/) });
    }
  });
});

describe("x-rule annotations (createRuleAjv + describeAjvErrors)", () => {
  const ajv = createRuleAjv({ strict: true, strictRequired: false, allErrors: true });
  const validate = ajv.compile({
    type: "object",
    properties: {
      code: { type: "string", minLength: 1, pattern: "^[a-z]+$", "x-rule": "must be lower-case letters", maxLength: 4 },
      bare: { type: "string", pattern: "^x$" },
      ref: {
        type: "object",
        properties: { env: { type: "string" }, file: { type: "string" } },
        anyOf: [{ required: ["env"] }, { required: ["file"] }],
        "x-rule": { type: "must be a reference", anyOf: "must have env or file" },
      },
      either: { anyOf: [{ type: "string" }, { type: "number" }] },
      list: { type: "array", uniqueItems: true },
    },
    if: { type: "object", required: ["code"] },
    then: { required: ["bare"], "x-rule": "is required when code is set" },
  });
  const lines = (data: unknown) => {
    expect(validate(data)).toBe(false);
    return describeAjvErrors("sec", validate.errors).map((p) => `${p.key} ${p.rule}`);
  };

  it("replaces the message of a failing pattern", () => expect(lines({ code: "AB", bare: "x" })).toEqual(["sec.code must be lower-case letters"]));
  it("replaces the message of a conditional required", () => expect(lines({ code: "ab" })).toEqual(["sec.bare is required when code is set"]));
  it("does not replace the node's other keywords, which get the shared words", () => {
    expect(lines({ code: 7, bare: "x" })).toEqual(["sec.code must be a string"]);
    expect(lines({ code: "abcde", bare: "x" })).toEqual(["sec.code must be at most 4 characters long"]);
  });
  it("an empty string is only 'must not be empty' (its patterns are implied)", () =>
    expect(lines({ code: "", bare: "x" })).toEqual(["sec.code must not be empty"]));
  it("an object annotation words the keywords it names", () => {
    expect(lines({ ref: "plain" })).toEqual(["sec.ref must be a reference"]);
    expect(lines({ ref: {} })).toEqual(["sec.ref must have env or file"]);
  });
  it("an unannotated anyOf of types reads as the union of the types", () =>
    expect(lines({ either: true })).toEqual(["sec.either must be a string or a number"]));
  it("names the first entry that repeats an earlier one", () =>
    expect(lines({ list: ["a", "b", "a", "a"] })).toEqual(["sec.list[2] repeats an earlier entry"]));
  it("without an annotation, ajv's message of a pattern stands", () => expect(lines({ code: "ab", bare: "y" })).toEqual(['sec.bare must match pattern "^x$"']));
  it("strict mode accepts string and object annotations; any other is a schema error", () => {
    expect(() => ajv.compile({ type: "string", pattern: "x", "x-rule": 5 })).toThrow();
  });
});
