/**
 * `hooks.mappings[]` (SPEC §6.1): each field's rule, ids, match.path
 * normalisation, default action, and `parseMappings` for preset mappings.
 */
import { resolveConfig } from "../../src/config/resolve";
import { parseMappings } from "../../src/config/mappings";
import type { MappingConfig } from "../../src/config/types";
import fs from "node:fs";
import path from "node:path";
import { checkPluginConfig } from "../../src/gateway/plugins/plugin-config";
import type { PluginManifest } from "../../src/gateway/plugins/manifest";

const TOKEN = "hk_3f9a1c7e5b2d4f60a8c1";

function mappings(list: unknown[]): MappingConfig[] {
  return resolveConfig({ hooks: { enabled: true, token: TOKEN, mappings: list } }, { configDir: "/cfg" }).mappings;
}

function problemOf(mapping: Record<string, unknown>): string {
  try {
    mappings([mapping]);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error("expected a ConfigError");
}

/** A valid agent mapping with one field changed. */
const agent = (field: string, value: unknown) => ({ match: { path: "x" }, messageTemplate: "m", [field]: value });

describe("mapping fields: accepted values", () => {
  it.each<[string, unknown]>([
    ["id", "github.push:v2"],
    ["action", "agent"],
    ["wakeMode", "now"],
    ["wakeMode", "next-heartbeat"],
    ["name", "GitHub"],
    ["sessionKey", "hook:github:{{ payload.repo }}"],
    ["deliver", false],
    ["channel", "bot_chat"],
    ["to", "+1 555 123 4567"],
    ["model", "openai/gpt-4o-mini"],
    ["model", "mini"],
    ["thinking", "xhigh"],
    ["timeoutSeconds", 0.5],
    ["timeoutSeconds", 86400],
    ["allowUnsafeExternalContent", true],
    ["transform", { module: "github/push.ts", export: "toAction" }],
    ["rateLimit", { max: 10, windowSeconds: 60 }],
  ])("%s = %j", (field, value) => {
    expect(mappings([agent(field, value)])[0]).toMatchObject({ [field]: value });
  });
});

describe("mapping fields: refused values name the field and the rule", () => {
  const m = "hooks.mappings[0]";
  it.each<[string, unknown, string]>([
    ["id", "", `${m}.id must not be empty`],
    ["id", "has space", `${m}.id must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)`],
    ["id", 7, `${m}.id must be a string`],
    ["match", "github", `${m}.match must be an object`],
    ["action", "run", `${m}.action must be one of: wake, agent (got "run")`],
    ["wakeMode", "later", `${m}.wakeMode must be one of: now, next-heartbeat (got "later")`],
    ["name", "x".repeat(201), `${m}.name must be at most 200 characters long`],
    ["name", "a\u0007b", `${m}.name must be a non-blank single line without control characters`],
    ["sessionKey", "k".repeat(257), `${m}.sessionKey must be at most 256 characters long`],
    ["messageTemplate", "   ", `${m}.messageTemplate must not be blank`],
    ["textTemplate", 5, `${m}.textTemplate must be a string`],
    ["deliver", "yes", `${m}.deliver must be a boolean (true or false)`],
    ["channel", "", `${m}.channel must not be empty`],
    ["to", "   ", `${m}.to must be a non-blank single line without control characters`],
    ["model", 4, `${m}.model must be a string`],
    ["thinking", "huge", `${m}.thinking must be one of: off, minimal, low, medium, high, xhigh (got "huge")`],
    ["timeoutSeconds", 0, `${m}.timeoutSeconds must be greater than 0`],
    ["timeoutSeconds", -1, `${m}.timeoutSeconds must be greater than 0`],
    ["timeoutSeconds", 86401, `${m}.timeoutSeconds must be at most 86400`],
    ["timeoutSeconds", "5", `${m}.timeoutSeconds must be a number`],
    ["allowUnsafeExternalContent", "true", `${m}.allowUnsafeExternalContent must be a boolean (true or false)`],
    ["transform", "x.js", `${m}.transform must be an object`],
    ["rateLimit", { max: 0, windowSeconds: 60 }, `${m}.rateLimit.max must be at least 1`],
    ["rateLimit", { max: 1.5, windowSeconds: 60 }, `${m}.rateLimit.max must be an integer`],
    ["rateLimit", { windowSeconds: 60 }, `${m}.rateLimit.max is required`],
    ["rateLimit", { max: 5, windowSeconds: 86401 }, `${m}.rateLimit.windowSeconds must be at most 86400`],
  ])("%s = %j", (field, value, expected) => {
    expect(problemOf(agent(field, value))).toBe(expected);
  });

  it.each<[unknown, string]>([
    [{ module: "/etc/x.js" }, "absolute"],
    [{ module: "../x.js" }, "escaping"],
    [{ module: "a/../../x.js" }, "escaping through a sub-directory"],
    [{ module: "a\\x.js" }, "backslash"],
    [{ module: "x.json" }, "unsupported extension"],
    [{ module: "x" }, "no extension"],
  ])("transform.module %j (%s) is refused", (transform) => {
    expect(problemOf({ match: { path: "x" }, transform })).toBe(
      "hooks.mappings[0].transform.module must be a relative path inside hooks.transformsDir (no leading '/', no '..' segment, no '\\') ending in .js, .mjs, .cjs or .ts",
    );
  });

  it("transform.export must be an identifier; transform.module is required", () => {
    expect(problemOf({ transform: { module: "a.js", export: "to-action" } })).toBe("hooks.mappings[0].transform.export must be a JavaScript identifier");
    expect(problemOf({ transform: { export: "x" } })).toBe("hooks.mappings[0].transform.module is required");
  });

  it("match.path must name a sub-path; match.source must be a non-blank line", () => {
    expect(problemOf({ match: { path: "//" }, messageTemplate: "m" })).toBe('hooks.mappings[0].match.path must not be "/" alone');
    expect(problemOf({ match: { path: "a?b" }, messageTemplate: "m" })).toBe(
      "hooks.mappings[0].match.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)",
    );
    expect(problemOf({ match: { source: "" }, messageTemplate: "m" })).toBe("hooks.mappings[0].match.source must not be empty");
  });

  it("an unknown field is reported with a suggestion", () => {
    expect(problemOf({ match: { path: "x" }, messageTemplate: "m", timeoutSecs: 5 })).toBe(
      "hooks.mappings[0].timeoutSecs is not a known key (did you mean hooks.mappings[0].timeoutSeconds?)",
    );
  });

  it("each bad mapping is named by its index", () => {
    expect(() => mappings([{ messageTemplate: "ok" }, { action: "wake" }, { thinking: "x", messageTemplate: "m" }])).toThrow(
      [
        'hooks.mappings[1].textTemplate is required when action is "wake" and the mapping has no transform',
        'hooks.mappings[2].thinking must be one of: off, minimal, low, medium, high, xhigh (got "x")',
      ].join("\n"),
    );
  });
});

describe("templates are required unless a transform supplies the action", () => {
  it("agent (the default action) needs messageTemplate; wake needs textTemplate", () => {
    expect(problemOf({ match: { path: "x" } })).toBe(
      'hooks.mappings[0].messageTemplate is required when action is "agent" (the default) and the mapping has no transform',
    );
    expect(problemOf({ match: { path: "x" }, action: "wake", messageTemplate: "m" })).toBe(
      'hooks.mappings[0].textTemplate is required when action is "wake" and the mapping has no transform',
    );
  });

  it("a mapping with a transform needs no template", () => {
    expect(
      mappings([
        { match: { path: "x" }, transform: { module: "x.ts" } },
        { action: "wake", transform: { module: "y.js" } },
      ]),
    ).toEqual([
      { id: "mapping-1", match: { path: "x" }, action: "agent", transform: { module: "x.ts" } },
      { id: "mapping-2", action: "wake", transform: { module: "y.js" } },
    ]);
  });
});

describe("resolution", () => {
  it("ids default to mapping-<n> (1-based), explicit ids are kept", () => {
    expect(mappings([{ messageTemplate: "a" }, { id: "github", messageTemplate: "b" }, { messageTemplate: "c" }]).map((m) => m.id)).toEqual([
      "mapping-1",
      "github",
      "mapping-3",
    ]);
  });

  it("duplicate ids do not fail here (the mapping engine reports them)", () => {
    expect(
      mappings([
        { id: "dup", messageTemplate: "a" },
        { id: "dup", messageTemplate: "b" },
      ]).map((m) => m.id),
    ).toEqual(["dup", "dup"]);
  });

  it.each([
    ["/github/", "github"],
    ["github", "github"],
    ["//github//push//", "github/push"],
    ["a/b/c", "a/b/c"],
  ])("match.path %s → %s", (raw, expected) => {
    expect(mappings([{ match: { path: raw }, messageTemplate: "m" }])[0].match).toEqual({ path: expected });
  });

  it("match.source is kept; an empty match is dropped", () => {
    expect(mappings([{ match: { source: "mail" }, messageTemplate: "m" }])[0].match).toEqual({ source: "mail" });
    expect(mappings([{ match: {}, messageTemplate: "m" }])[0]).toEqual({ id: "mapping-1", action: "agent", messageTemplate: "m" });
  });

  it("a complete mapping resolves to exactly its fields", () => {
    const full = {
      id: "github",
      match: { path: "/github/", source: "gh" },
      action: "wake",
      wakeMode: "next-heartbeat",
      name: "GitHub",
      sessionKey: "hook:gh",
      textTemplate: "t",
      messageTemplate: "m",
      deliver: false,
      channel: "bot_chat",
      to: "ops",
      model: "openai/gpt-4o",
      thinking: "low",
      timeoutSeconds: 30,
      allowUnsafeExternalContent: true,
      transform: { module: "gh.ts", export: "run" },
      rateLimit: { max: 5, windowSeconds: 10 },
    };
    expect(mappings([full])[0]).toEqual({ ...full, match: { path: "github", source: "gh" } });
  });
});

describe("parseMappings (preset mappings)", () => {
  it("resolves with the given id prefix", () => {
    const r = parseMappings([{ match: { path: "/mail/" }, transform: { module: "mail.ts" } }], { label: ["presets", "mail", "mappings"], idPrefix: "mail-" });
    expect(r).toEqual({ ok: true, value: [{ id: "mail-1", match: { path: "mail" }, action: "agent", transform: { module: "mail.ts" } }] });
  });

  it("reports problems under the given label, with the same rules and sentences", () => {
    const r = parseMappings([{ action: "wake" }, { messageTemplate: "m", thinking: "huge" }], { label: ["presets", "github", "mappings"] });
    expect(r).toEqual({
      ok: false,
      error: [
        'presets.github.mappings[0].textTemplate is required when action is "wake" and the mapping has no transform',
        'presets.github.mappings[1].thinking must be one of: off, minimal, low, medium, high, xhigh (got "huge")',
      ],
    });
  });

  it("refuses a non-array", () => {
    expect(parseMappings({}, { label: ["presets", "x", "mappings"] })).toEqual({ ok: false, error: ["presets.x.mappings must be an array"] });
  });
});

describe('a mistyped action (regression: action "wakey" was told "messageTemplate is required when action is "agent" (the default)")', () => {
  it("names the action it saw, and only that problem; the gateway's check (ajv, plugin.json) says the same", () => {
    const mapping = { match: { path: "x" }, action: "wakey" };
    expect(problemOf(mapping)).toBe('hooks.mappings[0].action must be one of: wake, agent (got "wakey")');
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../plugin.json"), "utf8")) as PluginManifest;
    expect(checkPluginConfig(manifest, { hooks: { enabled: true, token: TOKEN, mappings: [mapping] } }).map((p) => `${p.key} ${p.rule}`)).toEqual([
      'hooks.mappings[0].action must be one of: wake, agent (got "wakey")',
    ]);
  });

  it("no action (the default agent) still needs messageTemplate", () => {
    expect(problemOf({ match: { path: "x" } })).toBe(
      'hooks.mappings[0].messageTemplate is required when action is "agent" (the default) and the mapping has no transform',
    );
  });
});
