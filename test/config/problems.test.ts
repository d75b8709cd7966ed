/**
 * How joi details become sentences: key paths, typo suggestions, and no values.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describeProblems, formatKeyPath } from "../../src/config/problems";
import { checkHooksSection, hooksSectionSchema, VALIDATION_OPTIONS } from "../../src/config/schema";
import { PLUGIN_MANIFEST_PATH, readPluginConfigSchema } from "../../src/config/json-schema/plugin-config-schema";

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

describe("unknown keys", () => {
  it("suggests the nearest known key, case-insensitively", () => {
    expect(checkHooksSection({ Enabled: true })).toEqual(["hooks.Enabled is not a known key (did you mean hooks.enabled?)"]);
    expect(checkHooksSection({ allowQueryTokens: false })).toEqual(["hooks.allowQueryTokens is not a known key (did you mean hooks.allowQueryToken?)"]);
  });

  it("suggests at every depth: a mapping's key, its match's key, the mail IMAP settings' key", () => {
    expect(checkHooksSection({ mappings: [{ mach: { path: "a" }, messageTemplate: "m" }] })).toEqual([
      "hooks.mappings[0].mach is not a known key (did you mean hooks.mappings[0].match?)",
    ]);
    expect(checkHooksSection({ mappings: [{ match: { pth: "a" }, messageTemplate: "m" }] })).toEqual([
      "hooks.mappings[0].match.pth is not a known key (did you mean hooks.mappings[0].match.path?)",
    ]);
    expect(checkHooksSection({ mail: { imap: { host: "h", user: "u", password: { env: "P" }, mailbx: "X" } } })).toEqual([
      "hooks.mail.imap.mailbx is not a known key (did you mean hooks.mail.imap.mailbox?)",
    ]);
  });

  it("lists the known keys when nothing is close", () => {
    expect(checkHooksSection({ idempotency: { window: 5 } })).toEqual(["hooks.idempotency.window is not a known key; known keys here: ttlSeconds"]);
  });
});

describe("describeProblems", () => {
  it("lists every problem, one line each, sorted by key (indices numerically)", () => {
    const mappings = Array.from({ length: 11 }, () => ({ messageTemplate: "m" }));
    mappings[10] = { messageTemplate: "" };
    mappings[2] = { messageTemplate: "" };
    expect(checkHooksSection({ runs: { maxQueued: 0 }, maxBodyBytes: 0, enabled: true, mappings })).toEqual([
      "hooks.mappings[2].messageTemplate must not be empty",
      "hooks.mappings[10].messageTemplate must not be empty",
      "hooks.maxBodyBytes must be at least 1",
      "hooks.runs.maxQueued must be at least 1",
      "hooks.token is required when hooks.enabled is true",
    ]);
  });

  it("an integer key says so whatever the wrong value: a string, a fraction", () => {
    expect(checkHooksSection({ maxBodyBytes: "5" })).toEqual(["hooks.maxBodyBytes must be an integer"]);
    expect(checkHooksSection({ maxBodyBytes: 2.5 })).toEqual(["hooks.maxBodyBytes must be an integer"]);
    expect(checkHooksSection({ runs: { shutdownGraceSeconds: "5" } })).toEqual(["hooks.runs.shutdownGraceSeconds must be a number"]);
  });

  it("a number beyond the safe range or infinite (JSON5) breaks the bound on its side", () => {
    expect(checkHooksSection({ maxBodyBytes: 1e300 })).toEqual(["hooks.maxBodyBytes must be at most 67108864"]);
    expect(checkHooksSection({ maxBodyBytes: Infinity })).toEqual(["hooks.maxBodyBytes must be at most 67108864"]);
    expect(checkHooksSection({ maxBodyBytes: -Infinity })).toEqual(["hooks.maxBodyBytes must be at least 1"]);
  });

  it("a duplicate entry of the wrong type is reported for its type only", () => {
    expect(checkHooksSection({ presets: [1, 1] })).toEqual(["hooks.presets[0] must be a string", "hooks.presets[1] must be a string"]);
    expect(checkHooksSection({ presets: ["a", 1, "a"] })).toEqual(["hooks.presets[1] must be a string", "hooks.presets[2] repeats an earlier entry"]);
  });

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
