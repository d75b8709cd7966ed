/**
 * How joi details become sentences: key paths, typo suggestions, and no values.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describeProblems, editDistance, formatKeyPath } from "../../src/config/problems";
import { checkHooksSection, hooksSectionSchema, VALIDATION_OPTIONS } from "../../src/config/schema";
import { PLUGIN_MANIFEST_PATH, readPluginConfigSchema } from "../../src/config/json-schema";

describe("formatKeyPath", () => {
  it.each<[Array<string | number>, string]>([
    [["hooks", "token"], "hooks.token"],
    [["hooks", "mappings", 0, "match", "path"], "hooks.mappings[0].match.path"],
    [["hooks", "presets", 2], "hooks.presets[2]"],
    [[], "config"],
  ])("%j → %s", (p, expected) => {
    expect(formatKeyPath(p)).toBe(expected);
  });
});

describe("editDistance", () => {
  it.each<[string, string, number]>([
    ["token", "token", 0],
    ["tokn", "token", 1],
    ["pth", "path", 1],
    ["maxConcurent", "maxConcurrent", 1],
    ["abc", "", 3],
    ["kitten", "sitting", 3],
  ])("%s → %s = %d", (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe("unknown keys", () => {
  it("suggests the nearest known key, case-insensitively", () => {
    expect(checkHooksSection({ Enabled: true })).toEqual(["hooks.Enabled is not a known key (did you mean hooks.enabled?)"]);
    expect(checkHooksSection({ allowQueryTokens: false })).toEqual(["hooks.allowQueryTokens is not a known key (did you mean hooks.allowQueryToken?)"]);
  });

  it("lists the known keys when nothing is close", () => {
    expect(checkHooksSection({ idempotency: { window: 5 } })).toEqual([
      "hooks.idempotency.window is not a known key; known keys here: ttlSeconds",
    ]);
  });
});

describe("describeProblems", () => {
  it("returns [] without an error", () => {
    expect(describeProblems(undefined, hooksSectionSchema)).toEqual([]);
  });

  it("prefixes paths and never includes the offending values", () => {
    const { error } = hooksSectionSchema.validate(
      { path: "/Zq9?secret", token: "Zq9 tiny", presets: ["Zq9", "Zq9"], mappings: [{ id: "Zq9 x", messageTemplate: "m" }] },
      VALIDATION_OPTIONS,
    );
    const sentences = describeProblems(error, hooksSectionSchema, ["hooks"]);
    expect(sentences).toHaveLength(5);
    for (const s of sentences) {
      expect(s.startsWith("hooks.")).toBe(true);
      expect(s).not.toContain("Zq9");
    }
  });
});

describe("plugin.json's schema helper", () => {
  it("reads configSchema from the package's plugin.json", () => {
    expect(path.basename(PLUGIN_MANIFEST_PATH)).toBe("plugin.json");
    expect(readPluginConfigSchema()).toMatchObject({ type: "object", additionalProperties: false });
  });

  it("fails clearly for a manifest without a configSchema object", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "manifest-"));
    const file = path.join(dir, "plugin.json");
    fs.writeFileSync(file, JSON.stringify({ id: "x" }));
    try {
      expect(() => readPluginConfigSchema(file)).toThrow(`${file} has no configSchema object`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
