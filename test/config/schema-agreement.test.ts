/**
 * The JSON Schema in plugin.json (what a host checks before running plugin code)
 * and the joi schema (what `resolveConfig()` checks) must agree.
 *
 * - Every fixture in test/fixtures/config/good is accepted by both, and resolves.
 * - Every fixture in test/fixtures/config/bad is rejected by both, for the same key,
 *   and joi's message is the exact sentence listed below.
 * - Differential checks: boundary values of every numeric key and sample strings of
 *   every patterned key get the same verdict from both.
 * - Declared defaults, enums and pattern strings are the ones src/config/rules.ts holds.
 *
 * Rules JSON Schema cannot express (token from env/file and its length, token ≠
 * gateway.auth.token, hookUrl parsing, unique model aliases) are tested on
 * resolveConfig() only, in resolve.test.ts.
 */
import fs from "node:fs";
import path from "node:path";
import type { ErrorObject } from "ajv";
import { checkHooksSection } from "../../src/config/schema";
import { compilePluginConfigSchema, readPluginConfigSchema } from "../../src/config/json-schema";
import { resolveConfig } from "../../src/config/resolve";
import { BOUNDS, HOOKS_DEFAULTS, MAIL_DEFAULTS, PATTERN_RULES, PATTERNS, TLS_MODES, type Bound, type PatternName } from "../../src/config/rules";
import { ACTION_KINDS as ACTIONS, WAKE_MODES } from "../../src/core/actions";
import { THINKING_LEVELS } from "../../src/host-contract/host-api";

const FIXTURES = path.resolve(__dirname, "../fixtures/config");
const validate = compilePluginConfigSchema();
const TOKEN = "hk_3f9a1c7e5b2d4f60a8c1";

function fixtures(kind: "good" | "bad"): Array<[string, unknown]> {
  const dir = path.join(FIXTURES, kind);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f.replace(/\.json$/, ""), JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as unknown]);
}

/** ajv error → the key path it is about, in the same notation as joi messages. */
function ajvKeyPath(e: ErrorObject): string {
  const segments = e.instancePath
    .split("/")
    .slice(1)
    .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  const params = e.params as { missingProperty?: string; additionalProperty?: string };
  if (params.missingProperty) segments.push(params.missingProperty);
  if (params.additionalProperty) segments.push(params.additionalProperty);
  return segments.reduce((acc, s) => (/^\d+$/.test(s) ? `${acc}[${s}]` : `${acc}.${s}`), "hooks");
}

function jsonSchemaAccepts(section: unknown): boolean {
  return validate(section) === true;
}

/** The exact sentence joi produces for each bad fixture (one problem each). */
const EXPECTED_BAD: Record<string, string> = {
  "allow-query-token-string": "hooks.allowQueryToken must be a boolean (true or false)",
  "auth-throttle-negative": "hooks.authThrottle.maxFailures must be at least 1",
  "body-timeout-zero": "hooks.bodyTimeoutMs must be at least 1",
  "enabled-string": "hooks.enabled must be a boolean (true or false)",
  "enabled-without-token": "hooks.token is required when hooks.enabled is true",
  "idempotency-ttl-zero": "hooks.idempotency.ttlSeconds must be at least 1",
  "mail-bad-tls": "hooks.mail.imap.tls must be one of: tls, starttls, none",
  "mail-hook-url-not-http": "hooks.mail.hookUrl must be an http:// or https:// URL",
  "mail-max-messages-zero": "hooks.mail.maxMessages must be at least 1",
  "mail-missing-imap": "hooks.mail.imap is required",
  "mail-plain-password":
    'hooks.mail.imap.password must be a reference ({ "env": "NAME" } or { "file": "path" }); a plain-text password is refused',
  "mail-port-out-of-range": "hooks.mail.imap.port must be at most 65535",
  "mapping-agent-without-template":
    'hooks.mappings[0].messageTemplate is required when action is "agent" (the default) and the mapping has no transform',
  "mapping-bad-action": "hooks.mappings[0].action must be one of: wake, agent",
  "mapping-bad-id":
    "hooks.mappings[0].id must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)",
  "mapping-blank-name": "hooks.mappings[0].name must be a non-blank single line without control characters",
  "mapping-blank-template": "hooks.mappings[0].messageTemplate must not be blank",
  "mapping-deliver-string": "hooks.mappings[0].deliver must be a boolean (true or false)",
  "mapping-match-path-root": 'hooks.mappings[0].match.path must not be "/" alone',
  "mapping-match-unknown-key": "hooks.mappings[0].match.paths is not a known key (did you mean hooks.mappings[0].match.path?)",
  "mapping-rate-limit-incomplete": "hooks.mappings[0].rateLimit.windowSeconds is required",
  "mapping-session-key-too-long": "hooks.mappings[0].sessionKey must be at most 256 characters long",
  "mapping-thinking-huge": "hooks.mappings[0].thinking must be one of: off, minimal, low, medium, high, xhigh",
  "mapping-timeout-string": "hooks.mappings[0].timeoutSeconds must be a number",
  "mapping-timeout-too-big": "hooks.mappings[0].timeoutSeconds must be at most 86400",
  "mapping-timeout-zero": "hooks.mappings[0].timeoutSeconds must be greater than 0",
  "mapping-transform-absolute": TRANSFORM_MODULE_RULE(),
  "mapping-transform-bad-export": "hooks.mappings[0].transform.export must be a JavaScript identifier",
  "mapping-transform-escape": TRANSFORM_MODULE_RULE(),
  "mapping-transform-extension": TRANSFORM_MODULE_RULE(),
  "mapping-transform-no-module": "hooks.mappings[0].transform.module is required",
  "mapping-unknown-key": "hooks.mappings[0].mesageTemplate is not a known key (did you mean hooks.mappings[0].messageTemplate?)",
  "mapping-wake-mode-later": "hooks.mappings[0].wakeMode must be one of: now, next-heartbeat",
  "mapping-wake-without-template":
    'hooks.mappings[0].textTemplate is required when action is "wake" and the mapping has no transform',
  "mappings-not-array": "hooks.mappings must be an array",
  "max-body-fraction": "hooks.maxBodyBytes must be an integer",
  "max-body-negative": "hooks.maxBodyBytes must be at least 1",
  "max-body-string": "hooks.maxBodyBytes must be a number",
  "max-body-too-big": "hooks.maxBodyBytes must be at most 67108864",
  "path-dotdot": "hooks.path must not contain '..' or a '.' segment",
  "path-empty": "hooks.path must not be empty",
  "path-fragment": PATH_CHARS_RULE(),
  "path-not-string": "hooks.path must be a string",
  "path-only-slashes": 'hooks.path must not be "/" alone',
  "path-query": PATH_CHARS_RULE(),
  "path-root": 'hooks.path must not be "/" alone',
  "path-whitespace": PATH_CHARS_RULE(),
  "presets-duplicate": "hooks.presets[1] repeats an earlier entry",
  "presets-not-array": "hooks.presets must be an array",
  "rate-limit-enabled-string": "hooks.rateLimit.enabled must be a boolean (true or false)",
  "runs-grace-negative": "hooks.runs.shutdownGraceSeconds must be at least 0",
  "runs-max-concurrent-zero": "hooks.runs.maxConcurrent must be at least 1",
  "runs-unknown-key": "hooks.runs.maxConcurent is not a known key (did you mean hooks.runs.maxConcurrent?)",
  "section-not-object": "hooks must be an object",
  "session-prefix-without-colon": "hooks.allowedSessionKeyPrefixes[0] must end with ':' and contain no whitespace",
  "session-prefixes-empty": "hooks.allowedSessionKeyPrefixes must contain at least 1 entry",
  "token-inner-space": "hooks.token must contain only printable ASCII characters (no spaces inside)",
  "token-number": 'hooks.token must be a string of at least 16 characters, { "env": "NAME" } or { "file": "path" }',
  "token-ref-bad-env-name":
    "hooks.token.env must be an environment variable name (letters, digits and _, not starting with a digit)",
  "token-ref-both": "hooks.token must have only one of: env, file",
  "token-ref-empty": "hooks.token must have one of: env, file",
  "token-ref-extra-key": "hooks.token.fallback is not a known key; known keys here: env, file",
  "token-short-after-trim": "hooks.token must be at least 16 characters long (after trimming)",
  "token-too-short": "hooks.token must be at least 16 characters long (after trimming)",
  "transform-timeout-too-big": "hooks.transformTimeoutMs must be at most 300000",
  "transforms-dir-blank": "hooks.transformsDir must be a non-blank single line without control characters",
  "unknown-key": "hooks.tokn is not a known key (did you mean hooks.token?)",
};

function TRANSFORM_MODULE_RULE(): string {
  return "hooks.mappings[0].transform.module must be a relative path inside hooks.transformsDir (no leading '/', no '..' segment, no '\\') ending in .js, .mjs, .cjs or .ts";
}
function PATH_CHARS_RULE(): string {
  return "hooks.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)";
}

describe("config fixtures: joi and plugin.json's JSON Schema agree", () => {
  const good = fixtures("good");
  const bad = fixtures("bad");

  it("has enough fixtures, and an expected message for every bad one", () => {
    expect(good.length).toBeGreaterThanOrEqual(10);
    expect(bad.length).toBeGreaterThanOrEqual(12);
    expect(bad.map(([n]) => n).sort()).toEqual(Object.keys(EXPECTED_BAD).sort());
  });

  it.each(good)("good/%s is accepted by joi and by the JSON Schema, and resolves", (_name, section) => {
    expect(checkHooksSection(section)).toEqual([]);
    expect(jsonSchemaAccepts(section)).toBe(true);
    expect(() =>
      resolveConfig({ hooks: section }, { configDir: FIXTURES, env: { HOOK_TOKEN: TOKEN, IMAP_PASSWORD: "x" } }),
    ).not.toThrow();
  });

  it.each(bad)("bad/%s is rejected by joi and by the JSON Schema, for the same key", (name, section) => {
    const expected = EXPECTED_BAD[name];
    expect(checkHooksSection(section)).toEqual([expected]);
    expect(jsonSchemaAccepts(section)).toBe(false);

    const key = expected.slice(0, expected.indexOf(" "));
    const ajvKeys = (validate.errors ?? []).map(ajvKeyPath);
    // ajv names the key itself, or its list/object for rules on the whole (uniqueItems).
    const sameKey = ajvKeys.some(
      (k) => k === key || ((key.startsWith(`${k}.`) || key.startsWith(`${k}[`)) && k !== "hooks"),
    );
    expect({ name, key, ajvKeys, sameKey }).toEqual({ name, key, ajvKeys, sameKey: true });
  });

  it("a bad fixture also fails resolveConfig() with the same message", () => {
    for (const [name, section] of bad) {
      expect(() => resolveConfig({ hooks: section }, { configDir: FIXTURES, env: {} })).toThrow(EXPECTED_BAD[name]);
    }
  });
});

describe("differential checks: boundary values and sample strings", () => {
  type Build = (v: unknown) => unknown;
  const mapping = (field: string): Build => (v) => ({ mappings: [{ messageTemplate: "m", [field]: v }] });
  const mail = (field: string): Build => (v) => ({ mail: { imap: { host: "h", user: "u", password: { env: "P" } }, [field]: v } });
  const imap = (field: string): Build => (v) => ({ mail: { imap: { host: "h", user: "u", password: { env: "P" }, [field]: v } } });
  const nested = (obj: string, field: string): Build => (v) => ({ [obj]: { [field]: v } });
  const top = (field: string): Build => (v) => ({ [field]: v });

  const numeric: Array<[string, Build, Bound]> = [
    ["maxBodyBytes", top("maxBodyBytes"), BOUNDS.maxBodyBytes],
    ["bodyTimeoutMs", top("bodyTimeoutMs"), BOUNDS.bodyTimeoutMs],
    ["transformTimeoutMs", top("transformTimeoutMs"), BOUNDS.transformTimeoutMs],
    ["runs.maxConcurrent", nested("runs", "maxConcurrent"), BOUNDS.maxConcurrent],
    ["runs.maxQueued", nested("runs", "maxQueued"), BOUNDS.maxQueued],
    ["runs.shutdownGraceSeconds", nested("runs", "shutdownGraceSeconds"), BOUNDS.shutdownGraceSeconds],
    ["idempotency.ttlSeconds", nested("idempotency", "ttlSeconds"), BOUNDS.ttlSeconds],
    ["rateLimit.max", nested("rateLimit", "max"), BOUNDS.rateMax],
    ["rateLimit.windowSeconds", nested("rateLimit", "windowSeconds"), BOUNDS.windowSeconds],
    ["authThrottle.maxFailures", nested("authThrottle", "maxFailures"), BOUNDS.maxFailures],
    ["authThrottle.windowSeconds", nested("authThrottle", "windowSeconds"), BOUNDS.windowSeconds],
    ["mappings[].timeoutSeconds", mapping("timeoutSeconds"), BOUNDS.timeoutSeconds],
    ["mail.imap.port", imap("port"), BOUNDS.port],
    ["mail.maxBytes", mail("maxBytes"), BOUNDS.mailMaxBytes],
    ["mail.maxMessages", mail("maxMessages"), BOUNDS.maxMessages],
    ["mail.pollSeconds", mail("pollSeconds"), BOUNDS.pollSeconds],
  ];

  it.each(numeric)("%s: both accept exactly the values within its bounds", (_key, build, b) => {
    const candidates = [b.min - 1, b.min, b.min + 0.5, b.min + 1, b.max - 0.5, b.max, b.max + 1, -0.5, "5", null, true];
    for (const v of candidates) {
      const inBounds =
        typeof v === "number" &&
        (b.exclusiveMin ? v > b.min : v >= b.min) &&
        v <= b.max &&
        (!b.integer || Number.isInteger(v));
      const section = build(v);
      expect({ v, joi: checkHooksSection(section).length === 0 }).toEqual({ v, joi: inBounds });
      expect({ v, ajv: jsonSchemaAccepts(section) }).toEqual({ v, ajv: inBounds });
    }
  });

  const strings: Array<[string, Build, string[]]> = [
    ["token", (v) => ({ enabled: true, token: v }), [
      "0123456789abcdef", "0123456789abcde", "  0123456789abcdef  ", "\t0123456789abcdef\n", "0123456789 abcdef",
      "0123456789abcdé€", "", "                    ", "!\"#$%&'()*+,-./~", "0123456789abcdef\u0000",
    ]],
    ["path", top("path"), [
      "/hooks", "hooks", "hooks///", "//a//b//", "/", "//", "", "/.well-known", "/a/./b", "/a/.", ".", "/a..b", "/a/../b",
      "/hooks?x", "/hooks#x", "/ho oks", "/hooks%20", "/hööks", "/h:k", "/h*", "/~user/x_y-z.1",
    ]],
    ["mappings[].match.path", (v) => ({ mappings: [{ messageTemplate: "m", match: { path: v } }] }), [
      "github", "/github/", "a/b", "/", "", "a/../b", "a b",
    ]],
    ["mappings[].id", mapping("id"), ["github", "crm.lead:v2", "-x", "", "a b", "x".repeat(128), "x".repeat(129)]],
    ["mappings[].transform.module", (v) => ({ mappings: [{ transform: { module: v } }] }), [
      "a.js", "a.mjs", "a.cjs", "a.ts", "dir/a.ts", "./a.js", "a..b.js", "a", "a.py", "/a.js", "../a.js", "dir/../../a.js",
      "a\\b.js", "C:x.js", "..", "dir/..",
    ]],
    ["mappings[].transform.export", (v) => ({ mappings: [{ transform: { module: "a.js", export: v } }] }), [
      "default", "$x", "_a1", "1a", "a-b", "",
    ]],
    ["mappings[].name", mapping("name"), ["GitHub", " x ", "", "  ", "a\nb", "a\tb", "x".repeat(200), "x".repeat(201)]],
    ["mappings[].messageTemplate", (v) => ({ mappings: [{ messageTemplate: v }] }), ["x", "a\nb", "", " \n ", "{{ payload }}"]],
    ["allowedSessionKeyPrefixes[]", (v) => ({ allowedSessionKeyPrefixes: [v] }), ["hook:", "crm:x:", ":", "hook", "", "ho ok:"]],
    ["mail.hookUrl", mail("hookUrl"), ["http://127.0.0.1:18789/hooks/mail", "https://x", "ftp://x", "http://", "http://a b", ""]],
    ["token.env", (v) => ({ token: { env: v } }), ["HOOK_TOKEN", "_x", "1X", "A-B", ""]],
  ];

  it.each(strings)("%s: both give the same verdict on sample strings", (_key, build, samples) => {
    for (const s of samples) {
      const section = build(s);
      const joi = checkHooksSection(section).length === 0;
      expect({ s, ajv: jsonSchemaAccepts(section) }).toEqual({ s, ajv: joi });
    }
  });

  it("both require the token exactly when enabled is true", () => {
    for (const enabled of [true, false, undefined]) {
      const section = enabled === undefined ? {} : { enabled };
      expect({ enabled, joi: checkHooksSection(section).length === 0 }).toEqual({ enabled, joi: enabled !== true });
      expect({ enabled, ajv: jsonSchemaAccepts(section) }).toEqual({ enabled, ajv: enabled !== true });
    }
  });

  it("both refuse unknown keys at every level of the section", () => {
    const sections = [
      { nope: 1 },
      { runs: { nope: 1 } },
      { idempotency: { nope: 1 } },
      { rateLimit: { nope: 1 } },
      { authThrottle: { nope: 1 } },
      { mappings: [{ messageTemplate: "m", nope: 1 }] },
      { mappings: [{ messageTemplate: "m", match: { nope: 1 } }] },
      { mappings: [{ transform: { module: "a.js", nope: 1 } }] },
      { mappings: [{ messageTemplate: "m", rateLimit: { max: 1, windowSeconds: 1, nope: 1 } }] },
      { mail: { imap: { host: "h", user: "u", password: { env: "P" } }, nope: 1 } },
      { mail: { imap: { host: "h", user: "u", password: { env: "P" }, nope: 1 } } },
      { mail: { imap: { host: "h", user: "u", password: { env: "P", nope: 1 } } } },
    ];
    for (const s of sections) {
      expect({ s, joi: checkHooksSection(s).some((p) => p.includes(".nope is not a known key")) }).toEqual({ s, joi: true });
      expect({ s, ajv: jsonSchemaAccepts(s) }).toEqual({ s, ajv: false });
    }
  });
});

describe("plugin.json declares the rules src/config/rules.ts holds", () => {
  const schema = readPluginConfigSchema() as Record<string, any>;
  const props = schema.properties as Record<string, any>;
  const defs = schema.definitions as Record<string, any>;

  function collect(node: unknown, key: string, out: unknown[] = []): unknown[] {
    if (Array.isArray(node)) node.forEach((n) => collect(n, key, out));
    else if (node && typeof node === "object") {
      for (const [k, v] of Object.entries(node)) {
        if (k === key) out.push(v);
        collect(v, key, out);
      }
    }
    return out;
  }

  it("is a draft-07 schema of an object that refuses unknown keys", () => {
    expect(schema.$schema).toBe("http://json-schema.org/draft-07/schema#");
    expect(schema.type).toBe("object");
    expect(schema.additionalProperties).toBe(false);
  });

  it("uses only the patterns of rules.ts, and all of them (modelRef belongs to agents.defaults.models)", () => {
    const used = new Set(collect(schema, "pattern"));
    expect([...used].filter((p) => !Object.values(PATTERNS).includes(p as never))).toEqual([]);
    const unused = Object.entries(PATTERNS).filter(([, p]) => !used.has(p)).map(([name]) => name);
    expect(unused).toEqual(["modelRef"]);
  });

  it("states every pattern's rule in words (x-rule = PATTERN_RULES), and x-rule only beside a pattern or a required", () => {
    const nodes: Array<Record<string, unknown>> = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === "object") {
        nodes.push(node as Record<string, unknown>);
        Object.values(node).forEach(walk);
      }
    };
    walk(schema);
    const nameOf = (pattern: unknown) => (Object.keys(PATTERNS) as PatternName[]).find((k) => PATTERNS[k] === pattern)!;
    const withPattern = nodes.filter((n) => typeof n.pattern === "string");
    expect(withPattern.length).toBeGreaterThan(20);
    for (const n of withPattern) expect({ pattern: n.pattern, rule: n["x-rule"] }).toEqual({ pattern: n.pattern, rule: PATTERN_RULES[nameOf(n.pattern)] });
    const annotated = nodes.filter((n) => "x-rule" in n);
    for (const n of annotated) expect({ n, host: "pattern" in n || "required" in n }).toEqual({ n, host: true });
    expect(annotated.filter((n) => "required" in n).map((n) => n["x-rule"])).toEqual([
      "is required when hooks.enabled is true",
      'is required when action is "wake" and the mapping has no transform',
      'is required when action is "agent" (the default) and the mapping has no transform',
    ]);
  });

  it("declares the same enums", () => {
    expect(defs.thinking.enum).toEqual([...THINKING_LEVELS]);
    expect(defs.wakeMode.enum).toEqual([...WAKE_MODES]);
    expect(defs.mapping.properties.action.enum).toEqual([...ACTIONS]);
    expect(defs.mail.properties.imap.properties.tls.enum).toEqual([...TLS_MODES]);
  });

  it("declares the defaults resolveConfig() applies", () => {
    const configDir = "/srv/gateway";
    const resolved = resolveConfig({ hooks: {} }, { configDir }) as unknown as Record<string, any>;
    for (const [key, p] of Object.entries(props)) {
      if (p.default !== undefined) {
        const expected = key === "transformsDir" ? path.resolve(configDir, p.default) : p.default;
        expect({ key, value: resolved[key] }).toEqual({ key, value: expected });
      }
      if (p.type === "object" && p.properties && key !== "mail") {
        for (const [sub, sp] of Object.entries(p.properties as Record<string, any>)) {
          expect({ key: `${key}.${sub}`, value: resolved[key][sub] }).toEqual({ key: `${key}.${sub}`, value: sp.default });
        }
      }
    }
    expect(props.path.default).toBe(HOOKS_DEFAULTS.path);
  });

  it("declares the mail and mapping defaults resolveConfig() applies", () => {
    const minimalMail = { imap: { host: "h", user: "u", password: { env: "P" } } };
    const resolved = resolveConfig({ hooks: { mail: minimalMail, mappings: [{ messageTemplate: "m" }] } }, { configDir: "/x" });
    const mailProps = defs.mail.properties as Record<string, any>;
    for (const [key, p] of Object.entries(mailProps)) {
      if (p.default !== undefined) expect({ key, value: (resolved.mail as any)[key] }).toEqual({ key, value: p.default });
    }
    for (const [key, p] of Object.entries(mailProps.imap.properties as Record<string, any>)) {
      if (p.default !== undefined) expect({ key, value: (resolved.mail!.imap as any)[key] }).toEqual({ key, value: p.default });
    }
    expect(resolved.mail!.channel).toBe(MAIL_DEFAULTS.channel);
    expect(resolved.mappings[0].action).toBe(defs.mapping.properties.action.default);
  });
});
