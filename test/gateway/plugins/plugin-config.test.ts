/**
 * The gateway judges a plugin's config section with the manifest's JSON Schema
 * before any plugin code runs; a failing `pattern` (or conditional `required`) is
 * reported with the node's `x-rule`, never with the regular expression (SPEC §3).
 * For the hooks plugin the sentence is the one joi (resolveConfig) gives.
 */
import fs from "node:fs";
import path from "node:path";
import { createRuleAjv, firstProblem } from "../../../src/gateway/config/ajv-errors";
import type { PluginManifest } from "../../../src/gateway/plugins/manifest";
import { checkPluginConfig } from "../../../src/gateway/plugins/plugin-config";
import { checkHooksSection } from "../../../src/config/schema";

const ROOT = path.resolve(__dirname, "../../..");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "plugin.json"), "utf8")) as PluginManifest;
const BAD = path.join(ROOT, "test", "fixtures", "config", "bad");

function gatewaySentence(section: unknown): string | undefined {
  const p = checkPluginConfig(manifest, { hooks: section });
  return p && `${p.key} ${p.rule}`;
}

const badFixture = (name: string): unknown => JSON.parse(fs.readFileSync(path.join(BAD, `${name}.json`), "utf8"));

describe("the gateway's config sentences for the hooks plugin", () => {
  /** Fixtures whose gateway sentence is exactly joi's (every pattern and conditional-required case is here). */
  const SAME_AS_JOI = [
    "enabled-without-token",
    "mail-hook-url-not-http",
    "mapping-agent-without-template",
    "mapping-bad-id",
    "mapping-blank-name",
    "mapping-blank-template",
    "mapping-match-path-root",
    "mapping-session-key-too-long",
    "mapping-transform-absolute",
    "mapping-transform-bad-export",
    "mapping-transform-escape",
    "mapping-transform-extension",
    "mapping-wake-without-template",
    "path-dotdot",
    "path-empty",
    "path-fragment",
    "path-only-slashes",
    "path-query",
    "path-root",
    "path-whitespace",
    "presets-duplicate",
    "session-prefix-without-colon",
    "session-prefixes-empty",
    "token-inner-space",
    "token-short-after-trim",
    "token-too-short",
    "transforms-dir-blank",
  ];

  it.each(SAME_AS_JOI)("bad/%s: the same sentence as joi", (name) => {
    const section = badFixture(name);
    const joi = checkHooksSection(section);
    expect(joi).toHaveLength(1);
    expect(gatewaySentence(section)).toBe(joi[0]);
  });

  it("no bad fixture is reported with a regular expression or ajv's wording", () => {
    const files = fs.readdirSync(BAD).filter((f) => f.endsWith(".json"));
    expect(files.length).toBeGreaterThan(40);
    for (const f of files) {
      const sentence = gatewaySentence(badFixture(f.replace(/\.json$/, "")));
      expect({ f, sentence }).toEqual({ f, sentence: expect.any(String) });
      expect({ f, sentence }).toEqual({ f, sentence: expect.not.stringMatching(/match pattern|must NOT|\^|\\[sSdw]/) });
    }
  });
});

describe("x-rule annotations (createRuleAjv)", () => {
  const ajv = createRuleAjv({ strict: true, strictRequired: false });
  const validate = ajv.compile({
    type: "object",
    properties: {
      code: { type: "string", pattern: "^[a-z]+$", "x-rule": "must be lower-case letters", maxLength: 4 },
      bare: { type: "string", pattern: "^x$" },
    },
    if: { type: "object", required: ["code"] },
    then: { required: ["bare"], "x-rule": "is required when code is set" },
  });
  const problem = (data: unknown) => {
    expect(validate(data)).toBe(false);
    const p = firstProblem("sec", validate.errors);
    return `${p.key} ${p.rule}`;
  };

  it("replaces the message of a failing pattern", () => expect(problem({ code: "AB", bare: "x" })).toBe("sec.code must be lower-case letters"));
  it("replaces the message of a conditional required", () => expect(problem({ code: "ab" })).toBe("sec.bare is required when code is set"));
  it("does not replace the other keywords of the node", () => {
    expect(problem({ code: 7, bare: "x" })).toBe("sec.code must be string");
    expect(problem({ code: "abcde", bare: "x" })).toBe("sec.code must be at most 4 characters long");
  });
  it("without an annotation, ajv's message stands", () => expect(problem({ code: "ab", bare: "y" })).toBe('sec.bare must match pattern "^x$"'));
  it("strict mode accepts the annotation; a non-string annotation is a schema error", () => {
    expect(() => ajv.compile({ type: "string", pattern: "x", "x-rule": 5 })).toThrow();
  });
});
