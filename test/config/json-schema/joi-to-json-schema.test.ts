/**
 * The JSON Schema generated from joi (plugin.json#configSchema, what a host
 * checks before running plugin code) judges a `hooks` section as joi does:
 * boundary values of every numeric key, sample strings of every patterned key,
 * the conditional token, unknown keys at every level. It declares the patterns,
 * rules in words, enums and defaults of src/config/rules.ts. (The words of each
 * problem are compared in test/config/problems-agree.test.ts.)
 */
import path from "node:path";
import { checkHooksSection, hooksSectionSchema } from "../../../src/config/schema";
import { joiToJsonSchema } from "../../../src/config/json-schema/joi-to-json-schema";
import { compilePluginConfigSchema, readPluginConfigSchema } from "../../../src/config/json-schema/plugin-config-schema";
import { resolveConfig } from "../../../src/config/resolve";
import { BOUNDS, HOOKS_DEFAULTS, MAIL_DEFAULTS, PATTERN_RULES, PATTERNS, TLS_MODES, type Bound, type PatternName } from "../../../src/config/rules";
import { THINKING_LEVELS as THINKING_VALUES } from "../../../src/host-contract/host-api";
import { ACTION_KINDS as ACTIONS, WAKE_MODES } from "../../../src/core/actions";

const validate = compilePluginConfigSchema();

function jsonSchemaAccepts(section: unknown): boolean {
  return validate(section) === true;
}

describe("differential checks: boundary values and sample strings", () => {
  type Build = (v: unknown) => unknown;
  const mapping =
    (field: string): Build =>
    (v) => ({ mappings: [{ messageTemplate: "m", [field]: v }] });
  const mail =
    (field: string): Build =>
    (v) => ({ mail: { imap: { host: "h", user: "u", password: { env: "P" } }, [field]: v } });
  const imap =
    (field: string): Build =>
    (v) => ({ mail: { imap: { host: "h", user: "u", password: { env: "P" }, [field]: v } } });
  const nested =
    (obj: string, field: string): Build =>
    (v) => ({ [obj]: { [field]: v } });
  const top =
    (field: string): Build =>
    (v) => ({ [field]: v });

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
      const inBounds = typeof v === "number" && (b.exclusiveMin ? v > b.min : v >= b.min) && v <= b.max && (!b.integer || Number.isInteger(v));
      const section = build(v);
      expect({ v, joi: checkHooksSection(section).length === 0 }).toEqual({ v, joi: inBounds });
      expect({ v, ajv: jsonSchemaAccepts(section) }).toEqual({ v, ajv: inBounds });
    }
  });

  const strings: Array<[string, Build, string[]]> = [
    [
      "token",
      (v) => ({ enabled: true, token: v }),
      [
        "0123456789abcdef",
        "0123456789abcde",
        "  0123456789abcdef  ",
        "\t0123456789abcdef\n",
        "0123456789 abcdef",
        "0123456789abcdé€",
        "",
        "                    ",
        "!\"#$%&'()*+,-./~",
        "0123456789abcdef\u0000",
      ],
    ],
    [
      "path",
      top("path"),
      [
        "/hooks",
        "hooks",
        "hooks///",
        "//a//b//",
        "/",
        "//",
        "",
        "/.well-known",
        "/a/./b",
        "/a/.",
        ".",
        "/a..b",
        "/a/../b",
        "/hooks?x",
        "/hooks#x",
        "/ho oks",
        "/hooks%20",
        "/hööks",
        "/h:k",
        "/h*",
        "/~user/x_y-z.1",
      ],
    ],
    ["mappings[].match.path", (v) => ({ mappings: [{ messageTemplate: "m", match: { path: v } }] }), ["github", "/github/", "a/b", "/", "", "a/../b", "a b"]],
    ["mappings[].id", mapping("id"), ["github", "crm.lead:v2", "-x", "", "a b", "x".repeat(128), "x".repeat(129)]],
    [
      "mappings[].transform.module",
      (v) => ({ mappings: [{ transform: { module: v } }] }),
      [
        "a.js",
        "a.mjs",
        "a.cjs",
        "a.ts",
        "dir/a.ts",
        "./a.js",
        "a..b.js",
        "a",
        "a.py",
        "/a.js",
        "../a.js",
        "dir/../../a.js",
        "a\\b.js",
        "C:x.js",
        "..",
        "dir/..",
      ],
    ],
    ["mappings[].transform.export", (v) => ({ mappings: [{ transform: { module: "a.js", export: v } }] }), ["default", "$x", "_a1", "1a", "a-b", ""]],
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
  const mapping = props.mappings.items as Record<string, any>;
  const mail = props.mail as Record<string, any>;

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
    const unused = Object.entries(PATTERNS)
      .filter(([, p]) => !used.has(p))
      .map(([name]) => name);
    expect(unused).toEqual(["modelRef"]);
  });

  it("states every pattern's rule in words (x-rule = PATTERN_RULES), and each x-rule beside the keyword it words", () => {
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
    for (const n of annotated) {
      const rule = n["x-rule"];
      const worded = typeof rule === "string" ? ["pattern", "required", "anyOf", "not"].filter((k) => k in n) : Object.keys(rule as object);
      expect({ n, worded: worded.length === 1 && worded.every((k) => k in n) }).toEqual({ n, worded: true });
    }
    expect(annotated.filter((n) => typeof n["x-rule"] === "object").map((n) => n["x-rule"])).toEqual([
      { type: 'must be a string of at least 16 characters, { "env": "NAME" } or { "file": "path" }' },
      { type: 'must be a reference ({ "env": "NAME" } or { "file": "path" }); a plain-text password is refused' },
      { type: 'must be a postgres:// url, { "env": "NAME" } or { "file": "path" }' },
    ]);
    expect(
      annotated
        .filter((n) => "required" in n && typeof n["x-rule"] === "string")
        .map((n) => n["x-rule"])
        .sort(),
    ).toEqual([
      'is required when action is "agent" (the default) and the mapping has no transform',
      'is required when action is "wake" and the mapping has no transform',
      "is required when hooks.enabled is true",
      'is required when hooks.store.kind is "postgres"',
    ]);
  });

  it("declares the same enums", () => {
    expect(mapping.properties.thinking.enum).toEqual([...THINKING_VALUES]);
    expect(mail.properties.thinking.enum).toEqual([...THINKING_VALUES]);
    expect(mapping.properties.wakeMode.enum).toEqual([...WAKE_MODES]);
    expect(mapping.properties.action.enum).toEqual([...ACTIONS]);
    expect(mail.properties.imap.properties.tls.enum).toEqual([...TLS_MODES]);
  });

  it("declares the defaults resolveConfig() applies", () => {
    const configDir = "/srv/gateway";
    const resolved = resolveConfig({ hooks: {} }, { configDir }) as unknown as Record<string, any>;
    for (const [key, p] of Object.entries(props)) {
      if (p.default !== undefined) {
        const expected = key === "transformsDir" ? path.resolve(configDir, p.default) : p.default;
        expect({ key, value: resolved[key] }).toEqual({ key, value: expected });
      }
      // mail and github are optional sections: absent unless configured.
      if (p.type === "object" && p.properties && key !== "mail" && key !== "github") {
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
    const mailProps = mail.properties as Record<string, any>;
    for (const [key, p] of Object.entries(mailProps)) {
      if (p.default !== undefined) expect({ key, value: (resolved.mail as any)[key] }).toEqual({ key, value: p.default });
    }
    for (const [key, p] of Object.entries(mailProps.imap.properties as Record<string, any>)) {
      if (p.default !== undefined) expect({ key, value: (resolved.mail!.imap as any)[key] }).toEqual({ key, value: p.default });
    }
    expect(resolved.mail!.channel).toBe(MAIL_DEFAULTS.channel);
    expect(resolved.mappings[0].action).toBe(mapping.properties.action.default);
  });
});

describe("match.headers in plugin.json (pattern keys)", () => {
  it("states the header-name rule and the value schema", () => {
    const schema = joiToJsonSchema(hooksSectionSchema, ["hooks"]) as Record<string, any>;
    const headers = schema.properties.mappings.items.properties.match.properties.headers;
    expect(headers.propertyNames.pattern).toBe(PATTERNS.headerName);
    expect(headers.additionalProperties.if).toEqual({ type: "array" });
  });
});
