/**
 * One problem, one sentence: the gateway (ajv, against plugin.json's generated
 * configSchema, before any plugin code runs) and the plugin (joi, in
 * resolveConfig) report the same lines for the same `hooks` section — every
 * problem, `<key> <rule>`, sorted by key — on the fixture configs and on
 * randomly built sections mixing valid values, wrong types, bounds, patterns
 * and mistyped keys at every depth.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { checkHooksSection } from "../../src/config/schema";
import { resolveConfig } from "../../src/config/resolve";
import { checkPluginConfig } from "../../src/gateway/plugins/plugin-config";
import type { PluginManifest } from "../../src/gateway/plugins/manifest";

const ROOT = path.resolve(__dirname, "../..");
const FIXTURES = path.join(ROOT, "test", "fixtures", "config");
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, "plugin.json"), "utf8")) as PluginManifest;

/** The gateway's lines for a hooks section. */
function gatewayLines(section: unknown): string[] {
  return checkPluginConfig(manifest, { hooks: section }).map((p) => `${p.key} ${p.rule}`);
}

/** The lines of resolveConfig's ConfigError ([] when it resolves). */
function pluginLines(section: unknown): string[] {
  try {
    resolveConfig({ hooks: section }, { configDir: FIXTURES });
    return [];
  } catch (e) {
    return (e as Error).message.split("\n");
  }
}

function fixtures(kind: "good" | "bad"): Array<[string, unknown]> {
  const dir = path.join(FIXTURES, kind);
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => [f.replace(/\.json$/, ""), JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")) as unknown]);
}

const TRANSFORM_MODULE_LINE =
  "hooks.mappings[0].transform.module must be a relative path inside hooks.transformsDir (no leading '/', no '..' segment, no '\\') ending in .js, .mjs, .cjs or .ts";
const PATH_CHARS_LINE = "hooks.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)";

/** The exact line each bad fixture gets (one problem each). */
const EXPECTED_BAD: Record<string, string> = {
  "allow-query-token-string": "hooks.allowQueryToken must be a boolean (true or false)",
  "auth-throttle-negative": "hooks.authThrottle.maxFailures must be at least 1",
  "body-timeout-zero": "hooks.bodyTimeoutMs must be at least 1",
  "enabled-string": "hooks.enabled must be a boolean (true or false)",
  "enabled-without-token": "hooks.token is required when hooks.enabled is true",
  "idempotency-ttl-zero": "hooks.idempotency.ttlSeconds must be at least 1",
  "mail-bad-tls": 'hooks.mail.imap.tls must be one of: tls, starttls, none (got "ssl")',
  "mail-hook-url-not-http": "hooks.mail.hookUrl must be an http:// or https:// URL",
  "mail-max-messages-zero": "hooks.mail.maxMessages must be at least 1",
  "mail-missing-imap": "hooks.mail.imap is required",
  "mail-plain-password": 'hooks.mail.imap.password must be a reference ({ "env": "NAME" } or { "file": "path" }); a plain-text password is refused',
  "mail-port-out-of-range": "hooks.mail.imap.port must be at most 65535",
  "mapping-agent-without-template": 'hooks.mappings[0].messageTemplate is required when action is "agent" (the default) and the mapping has no transform',
  "mapping-bad-action": 'hooks.mappings[0].action must be one of: wake, agent (got "run")',
  "mapping-bad-id": "hooks.mappings[0].id must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)",
  "mapping-blank-name": "hooks.mappings[0].name must be a non-blank single line without control characters",
  "mapping-blank-template": "hooks.mappings[0].messageTemplate must not be blank",
  "mapping-deliver-string": "hooks.mappings[0].deliver must be a boolean (true or false)",
  "mapping-match-path-root": 'hooks.mappings[0].match.path must not be "/" alone',
  "mapping-match-unknown-key": "hooks.mappings[0].match.paths is not a known key (did you mean hooks.mappings[0].match.path?)",
  "mapping-rate-limit-incomplete": "hooks.mappings[0].rateLimit.windowSeconds is required",
  "mapping-session-key-too-long": "hooks.mappings[0].sessionKey must be at most 256 characters long",
  "mapping-thinking-huge": 'hooks.mappings[0].thinking must be one of: off, minimal, low, medium, high, xhigh (got "huge")',
  "mapping-timeout-string": "hooks.mappings[0].timeoutSeconds must be a number",
  "mapping-timeout-too-big": "hooks.mappings[0].timeoutSeconds must be at most 86400",
  "mapping-timeout-zero": "hooks.mappings[0].timeoutSeconds must be greater than 0",
  "mapping-transform-absolute": TRANSFORM_MODULE_LINE,
  "mapping-transform-bad-export": "hooks.mappings[0].transform.export must be a JavaScript identifier",
  "mapping-transform-escape": TRANSFORM_MODULE_LINE,
  "mapping-transform-extension": TRANSFORM_MODULE_LINE,
  "mapping-transform-no-module": "hooks.mappings[0].transform.module is required",
  "mapping-unknown-key": "hooks.mappings[0].mesageTemplate is not a known key (did you mean hooks.mappings[0].messageTemplate?)",
  "mapping-wake-mode-later": 'hooks.mappings[0].wakeMode must be one of: now, next-heartbeat (got "later")',
  "mapping-wake-without-template": 'hooks.mappings[0].textTemplate is required when action is "wake" and the mapping has no transform',
  "mappings-not-array": "hooks.mappings must be an array",
  "max-body-fraction": "hooks.maxBodyBytes must be an integer",
  "max-body-negative": "hooks.maxBodyBytes must be at least 1",
  "max-body-string": "hooks.maxBodyBytes must be an integer",
  "max-body-too-big": "hooks.maxBodyBytes must be at most 67108864",
  "path-dotdot": "hooks.path must not contain '..' or a '.' segment",
  "path-empty": "hooks.path must not be empty",
  "path-fragment": PATH_CHARS_LINE,
  "path-not-string": "hooks.path must be a string",
  "path-only-slashes": 'hooks.path must not be "/" alone',
  "path-query": PATH_CHARS_LINE,
  "path-root": 'hooks.path must not be "/" alone',
  "path-whitespace": PATH_CHARS_LINE,
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
  "token-ref-bad-env-name": "hooks.token.env must be an environment variable name (letters, digits and _, not starting with a digit)",
  "token-ref-both": "hooks.token must have only one of: env, file",
  "token-ref-empty": "hooks.token must have one of: env, file",
  "token-ref-extra-key": "hooks.token.fallback is not a known key; known keys here: env, file",
  "token-short-after-trim": "hooks.token must be at least 16 characters long (after trimming)",
  "token-too-short": "hooks.token must be at least 16 characters long (after trimming)",
  "transform-timeout-too-big": "hooks.transformTimeoutMs must be at most 300000",
  "transforms-dir-blank": "hooks.transformsDir must be a non-blank single line without control characters",
  "unknown-key": "hooks.tokn is not a known key (did you mean hooks.token?)",
};

describe("fixture configs: the same lines from the gateway and from the plugin", () => {
  it("has enough fixtures, and an expected line for every bad one", () => {
    expect(fixtures("good").length).toBeGreaterThanOrEqual(10);
    expect(fixtures("bad").map(([n]) => n)).toEqual(Object.keys(EXPECTED_BAD).sort());
  });

  it.each(fixtures("good"))("good/%s: no problem on either side", (_name, section) => {
    expect(gatewayLines(section)).toEqual([]);
    expect(checkHooksSection(section)).toEqual([]);
  });

  it.each(fixtures("bad"))("bad/%s: the expected line, from both", (name, section) => {
    expect(gatewayLines(section)).toEqual([EXPECTED_BAD[name]]);
    expect(pluginLines(section)).toEqual([EXPECTED_BAD[name]]);
  });
});

describe("a section with several problems names every one, in key order", () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    [
      "enabled without a token and a zero body limit",
      { enabled: true, maxBodyBytes: 0 },
      ["hooks.maxBodyBytes must be at least 1", "hooks.token is required when hooks.enabled is true"],
    ],
    [
      "mistyped keys at two depths",
      { tokn: "x", mappings: [{ mach: { path: "a" }, messageTemplate: "m" }] },
      ["hooks.mappings[0].mach is not a known key (did you mean hooks.mappings[0].match?)", "hooks.tokn is not a known key (did you mean hooks.token?)"],
    ],
    [
      "three kinds in nested objects and lists",
      {
        enabled: "yes",
        runs: { maxConcurrent: 0, maxQueud: 5 },
        mappings: [{ messageTemplate: "m" }, { action: "wake", thinking: "max" }],
        mail: { imap: { host: "h", user: "u", password: "secret" } },
      },
      [
        "hooks.enabled must be a boolean (true or false)",
        'hooks.mail.imap.password must be a reference ({ "env": "NAME" } or { "file": "path" }); a plain-text password is refused',
        'hooks.mappings[1].textTemplate is required when action is "wake" and the mapping has no transform',
        'hooks.mappings[1].thinking must be one of: off, minimal, low, medium, high, xhigh (got "max")',
        "hooks.runs.maxConcurrent must be at least 1",
        "hooks.runs.maxQueud is not a known key (did you mean hooks.runs.maxQueued?)",
      ],
    ],
    [
      "a match header named in capitals: the header and the rule, once (regression: the gateway said 'match.headers property name must be valid' as a second line, the plugin 'is not a known key')",
      {
        mappings: [{ match: { path: "a", headers: { "X-Bad": "v", "x-good": "v" } }, messageTemplate: "m" }],
      },
      ["hooks.mappings[0].match.headers.X-Bad must be a header name in lower case (letters, digits and !#$%&'*+.^_`|~-)"],
    ],
    [
      "a response status other than 200 or 202 (regression: plugin.json's schema dropped valid(200, 202), so the gateway's check let 201 through)",
      {
        mappings: [{ match: { path: "a" }, messageTemplate: "m", response: { status: 201 } }],
      },
      ["hooks.mappings[0].response.status must be one of: 200, 202 (got 201)"],
    ],
    [
      "indices in numeric order",
      { mappings: Array.from({ length: 11 }, (_, i) => (i === 1 || i === 10 ? { id: "-x", messageTemplate: "m" } : { messageTemplate: "m" })) },
      [
        "hooks.mappings[1].id must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)",
        "hooks.mappings[10].id must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)",
      ],
    ],
  ])("%s", (_name, section, expected) => {
    expect(gatewayLines(section)).toEqual(expected);
    expect(pluginLines(section)).toEqual(expected);
  });
});

/* Random sections: every key of the schema, values drawn from a pool that breaks each kind of rule. */
const SCALARS: unknown[] = [
  true,
  false,
  null,
  0,
  1,
  -1,
  0.5,
  4,
  60,
  86401,
  1e12,
  "",
  " ",
  "x",
  "5",
  "true",
  "a\nb",
  "hook:",
  "a b:",
  "/",
  "/hooks",
  "a/../b",
  "wake",
  "agent",
  "now",
  "low",
  "max",
  "tls",
  "none",
  "http://127.0.0.1/hooks/mail",
  "ftp://x",
  "a.js",
  "../a.js",
  "a.py",
  "default",
  "1x",
  "0123456789abcdef",
  "0123456789 abcdef",
  "x".repeat(257),
];
const scalar = fc.constantFrom(...SCALARS);
/** Mostly a valid value for the key, sometimes anything from the pool. */
const v = (...good: unknown[]) => fc.oneof({ weight: 12, arbitrary: fc.constantFrom(...good) }, { weight: 1, arbitrary: scalar });
const bool = v(true, false);
const line = v("x", "GitHub", "ops-room");
const count = v(1, 4, 60);
const ref = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<unknown>({ env: "HOOK_TOKEN" }, { file: "t" }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>("pw", {}, { env: "1X" }, { env: "A", file: "b" }, { env: "A", fiel: "b" }) },
);
const secret = fc.oneof(v("0123456789abcdef"), ref);
const list = (item: fc.Arbitrary<unknown>) => fc.oneof({ weight: 4, arbitrary: fc.array(item, { maxLength: 3 }) }, { weight: 1, arbitrary: scalar });

/** An object with a random subset of `keys` (plus, sometimes, a mistyped or unknown key). */
function objectOf(keys: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<unknown> {
  const names = Object.keys(keys);
  const typo = fc.constantFrom(...names.map((k) => k.slice(0, -1)), "nope", "Enabled");
  return fc.oneof(
    { weight: 1, arbitrary: scalar },
    {
      weight: 20,
      arbitrary: fc
        .tuple(fc.record(keys, { requiredKeys: [] }), fc.oneof({ weight: 12, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: fc.tuple(typo, scalar) }))
        .map(([o, extra]) => (extra ? { ...o, [extra[0]]: extra[1] } : o)),
    },
  );
}

const mapping = objectOf({
  id: v("github", "crm.lead:v2"),
  match: objectOf({ path: v("github", "a/b"), source: line }),
  action: v("wake", "agent"),
  wakeMode: v("now", "next-heartbeat"),
  name: line,
  sessionKey: v("hook:x"),
  textTemplate: v("t {{ payload.x }}"),
  messageTemplate: v("m"),
  deliver: bool,
  channel: line,
  to: line,
  model: line,
  thinking: v("low", "off"),
  timeoutSeconds: v(0.5, 120),
  allowUnsafeExternalContent: bool,
  transform: objectOf({ module: v("a.js", "dir/b.ts"), export: v("toAction") }),
  rateLimit: objectOf({ max: count, windowSeconds: count }),
});
const mail = objectOf({
  imap: objectOf({ host: line, port: v(993, 143), tls: v("tls", "starttls", "none"), user: line, password: ref, mailbox: v("INBOX") }),
  hookUrl: v("http://127.0.0.1:18789/hooks/mail"),
  includeBody: bool,
  maxBytes: count,
  maxMessages: count,
  pollSeconds: count,
  autoStart: bool,
  deliver: bool,
  channel: v("last"),
  to: line,
  model: line,
  thinking: v("low"),
  allowUnsafeExternalContent: bool,
});
const section = objectOf({
  enabled: bool,
  token: secret,
  path: v("/hooks", "hooks///", "/a/b"),
  maxBodyBytes: v(1, 262144),
  bodyTimeoutMs: count,
  allowQueryToken: bool,
  presets: list(v("mail", "github")),
  mappings: list(mapping),
  transformsDir: v("hooks/transforms"),
  transformTimeoutMs: count,
  mail,
  allowedSessionKeyPrefixes: list(v("hook:", "crm:")),
  runs: objectOf({ maxConcurrent: count, maxQueued: count, shutdownGraceSeconds: v(0, 10), retryInterrupted: bool }),
  idempotency: objectOf({ ttlSeconds: count }),
  rateLimit: objectOf({ enabled: bool, max: count, windowSeconds: count }),
  authThrottle: objectOf({ maxFailures: count, windowSeconds: count }),
});

describe("random sections: the same lines from the gateway and from the plugin", () => {
  it("holds for 1000 sections (fixed seed)", () => {
    fc.assert(
      fc.property(section, (s) => {
        expect(checkHooksSection(s)).toEqual(gatewayLines(s));
      }),
      { numRuns: 1000, seed: 20260401 },
    );
  });
});
