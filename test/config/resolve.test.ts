/**
 * resolveConfig() (and resolveHooksSecrets() after it): invalid config names the
 * key and the rule (SPEC §3), defaults, the one ConfigError listing every problem, and rules JSON Schema
 * cannot check (unique model aliases). Token sources are in
 * resolve-hooks-secrets.test.ts.
 */
import { checkConfig, resolveConfig, resolveHooksSecrets } from "../../src/config/resolve";
import { ConfigError } from "../../src/core/errors";

import { CONFIG_DIR, problem, resolve, TOKEN } from "./resolve-support";

const enabled = (extra: Record<string, unknown> = {}) => ({ hooks: { enabled: true, token: TOKEN, ...extra } });

describe("invalid config fails with a message naming the key", () => {
  it.each<[string, Record<string, unknown>, NodeJS.ProcessEnv, string]>([
    ["enabled without token", { hooks: { enabled: true } }, {}, "hooks.token is required when hooks.enabled is true"],
    ["token shorter than 16", { hooks: { enabled: true, token: "0123456789abcde" } }, {}, "hooks.token must be at least 16 characters long (after trimming)"],
    [
      "token equal to the gateway token",
      { hooks: { enabled: true, token: TOKEN }, gateway: { auth: { token: TOKEN } } },
      {},
      "hooks.token must differ from gateway.auth.token (use a dedicated hook token)",
    ],
    ['path "/"', enabled({ path: "/" }), {}, 'hooks.path must not be "/" alone'],
    ["maxBodyBytes -1", enabled({ maxBodyBytes: -1 }), {}, "hooks.maxBodyBytes must be at least 1"],
  ])("%s", (_name, raw, env, expected) => {
    expect(problem(raw, env)).toBe(expected);
  });

  it('path "hooks///" resolves to "/hooks"', () => {
    expect(resolve(enabled({ path: "hooks///" })).path).toBe("/hooks");
  });
});

describe("defaults", () => {
  it("an absent hooks section resolves to the documented defaults (disabled, no token)", () => {
    expect(resolve({})).toEqual({
      enabled: false,
      token: "",
      path: "/hooks",
      maxBodyBytes: 262144,
      maxFanOut: 100,
      maxRenderedBytes: 1048576,
      bodyTimeoutMs: 30000,
      allowQueryToken: true,
      presets: [],
      mappings: [],
      transformsDir: "/srv/gateway/hooks/transforms",
      transformTimeoutMs: 5000,
      allowedSessionKeyPrefixes: ["hook:"],
      runs: {
        maxConcurrent: 4,
        maxQueued: 1000,
        shutdownGraceSeconds: 10,
        retryInterrupted: false,
        maxWaitSeconds: 30,
        maxWaitingPerClient: 8,
        retentionDays: 7,
        maxFinished: 1000,
      },
      idempotency: { ttlSeconds: 86400 },
      ledger: { storeBodies: true, retentionDays: 7, maxEntries: 10000 },
      store: { kind: "sqlite" },
      rateLimit: { enabled: true, max: 120, windowSeconds: 60 },
      authThrottle: { maxFailures: 20, windowSeconds: 60 },
      durability: "process",
      defaultTimeoutSeconds: 600,
    });
  });

  it("keeps every configured value", () => {
    const c = resolve({
      hooks: {
        enabled: true,
        token: TOKEN,
        path: "/in/hooks/",
        maxBodyBytes: 1024,
        bodyTimeoutMs: 500,
        allowQueryToken: false,
        presets: ["mail", "github"],
        transformsDir: "/opt/transforms",
        transformTimeoutMs: 100,
        allowedSessionKeyPrefixes: ["hook:", "crm:"],
        runs: { maxConcurrent: 1, maxQueued: 5, shutdownGraceSeconds: 0.5, retryInterrupted: true },
        idempotency: { ttlSeconds: 60 },
        rateLimit: { enabled: false, max: 3, windowSeconds: 2 },
        authThrottle: { maxFailures: 2, windowSeconds: 5 },
        store: { kind: "postgres", url: { file: "pg-url" }, poolMax: 4, connectTimeoutMs: 1000, leaseSeconds: 10 },
      },
      agents: { defaults: { timeoutSeconds: 30 } },
    });
    expect(c).toEqual({
      enabled: true,
      tokenSource: TOKEN,
      token: TOKEN,
      path: "/in/hooks",
      maxBodyBytes: 1024,
      maxFanOut: 100,
      maxRenderedBytes: 1048576,
      bodyTimeoutMs: 500,
      allowQueryToken: false,
      presets: ["mail", "github"],
      mappings: [],
      transformsDir: "/opt/transforms",
      transformTimeoutMs: 100,
      allowedSessionKeyPrefixes: ["hook:", "crm:"],
      runs: {
        maxConcurrent: 1,
        maxQueued: 5,
        shutdownGraceSeconds: 0.5,
        retryInterrupted: true,
        maxWaitSeconds: 30,
        maxWaitingPerClient: 8,
        retentionDays: 7,
        maxFinished: 1000,
      },
      idempotency: { ttlSeconds: 60 },
      ledger: { storeBodies: true, retentionDays: 7, maxEntries: 10000 },
      rateLimit: { enabled: false, max: 3, windowSeconds: 2 },
      authThrottle: { maxFailures: 2, windowSeconds: 5 },
      store: { kind: "postgres", urlSource: { file: "pg-url" }, poolMax: 4, connectTimeoutMs: 1000, leaseSeconds: 10 },
      durability: "process",
      defaultTimeoutSeconds: 30,
    });
  });

  it("a partial nested object gets the defaults of its other keys", () => {
    const c = resolve({ hooks: { runs: { maxConcurrent: 8 }, rateLimit: { enabled: false } } });
    expect(c.runs).toEqual({
      maxConcurrent: 8,
      maxQueued: 1000,
      shutdownGraceSeconds: 10,
      retryInterrupted: false,
      maxWaitSeconds: 30,
      maxWaitingPerClient: 8,
      retentionDays: 7,
      maxFinished: 1000,
    });
    expect(c.rateLimit).toEqual({ enabled: false, max: 120, windowSeconds: 60 });
  });

  it("does not mutate the raw config", () => {
    const raw = { hooks: { enabled: true, token: TOKEN, path: "x/" } };
    const copy = JSON.parse(JSON.stringify(raw));
    resolve(raw);
    expect(raw).toEqual(copy);
  });
});

describe("hooks.durability", () => {
  it('is "process" by default, "os" when asked; any other value is an error naming both', () => {
    expect(resolve({ hooks: { enabled: true, token: TOKEN } }).durability).toBe("process");
    expect(resolve({ hooks: { enabled: true, token: TOKEN, durability: "os" } }).durability).toBe("os");
    expect(problem({ hooks: { enabled: true, token: TOKEN, durability: "fsync" } })).toBe('hooks.durability must be one of: process, os (got "fsync")');
  });
});

describe("hooks.enabled", () => {
  it("is true only when exactly true; a non-boolean is an error, not a silent false", () => {
    expect(resolve(enabled()).enabled).toBe(true);
    expect(resolve({ hooks: { enabled: false, token: TOKEN } }).enabled).toBe(false);
    expect(problem({ hooks: { enabled: "true", token: TOKEN } })).toBe("hooks.enabled must be a boolean (true or false)");
    expect(problem({ hooks: { enabled: 1 } })).toBe("hooks.enabled must be a boolean (true or false)");
  });

  it("when disabled the token is not required, not resolved, and resolves to an empty string", () => {
    expect(resolve({ hooks: { enabled: false } }).token).toBe("");
    expect(resolve({ hooks: { enabled: false, token: { env: "NOT_SET_ANYWHERE" } } }).token).toBe("");
    expect(resolve({ hooks: { token: TOKEN } }).token).toBe("");
  });

  it("when disabled a given token must still have a valid shape", () => {
    expect(problem({ hooks: { token: "short" } })).toBe("hooks.token must be at least 16 characters long (after trimming)");
  });
});

describe("hooks.path normalisation", () => {
  it.each([
    ["hooks", "/hooks"],
    ["/hooks", "/hooks"],
    ["/hooks/", "/hooks"],
    ["hooks///", "/hooks"],
    ["//in//hooks//", "/in/hooks"],
    ["/a/b-c_d.e~f", "/a/b-c_d.e~f"],
  ])("%s → %s", (raw, expected) => {
    expect(resolve(enabled({ path: raw })).path).toBe(expected);
  });

  it.each([
    ["/", 'hooks.path must not be "/" alone'],
    ["///", 'hooks.path must not be "/" alone'],
    ["", "hooks.path must not be empty"],
    ["/hooks?x=1", "hooks.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)"],
    ["/hooks#x", "hooks.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)"],
    [" /hooks", "hooks.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)"],
    ["/hooks/../admin", "hooks.path must not contain '..' or a '.' segment"],
    ["/a/./b", "hooks.path must not contain '..' or a '.' segment"],
  ])("%j is refused", (raw, expected) => {
    expect(problem(enabled({ path: raw }))).toBe(expected);
  });
});

describe("related keys outside hooks", () => {
  it("agents.defaults.timeoutSeconds: number > 0, at most 86400, default 600", () => {
    expect(resolve({ agents: { defaults: { timeoutSeconds: 0.5 } } }).defaultTimeoutSeconds).toBe(0.5);
    expect(resolve({ agents: { defaults: {} } }).defaultTimeoutSeconds).toBe(600);
    expect(problem({ agents: { defaults: { timeoutSeconds: 0 } } })).toBe("agents.defaults.timeoutSeconds must be greater than 0");
    expect(problem({ agents: { defaults: { timeoutSeconds: "600" } } })).toBe("agents.defaults.timeoutSeconds must be a number");
    expect(problem({ agents: { defaults: { timeoutSeconds: 86401 } } })).toBe("agents.defaults.timeoutSeconds must be at most 86400");
  });

  it("agents.defaults.models: keys are provider/model refs, each { alias? }, aliases unique", () => {
    expect(() => resolve({ agents: { defaults: { models: { "openai/gpt-4o": {}, "openai/gpt-4o-mini": { alias: "mini" } } } } })).not.toThrow();
    expect(problem({ agents: { defaults: { models: { "gpt-4o": {} } } } })).toBe("agents.defaults.models.gpt-4o is not a model ref of the form provider/model");
    expect(problem({ agents: { defaults: { models: { "a/b": { alias: 3 } } } } })).toBe("agents.defaults.models.a/b.alias must be a string");
    expect(problem({ agents: { defaults: { models: { "a/b": "fast" } } } })).toBe("agents.defaults.models.a/b must be an object");
    expect(problem({ agents: { defaults: { models: { "a/b": { alias: "x" }, "c/d": { alias: "x" } } } } })).toBe(
      "agents.defaults.models.c/d.alias repeats the alias of agents.defaults.models.a/b (aliases must be unique)",
    );
  });

  it("leaves the host's other keys alone", () => {
    expect(() =>
      resolve({
        gateway: { bind: "127.0.0.1", port: 18789, auth: { token: "gw_0123456789abcdef", mode: "x" } },
        agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "30m" }, models: { "a/b": { alias: "b", params: {} } } } },
        plugins: { paths: [] },
        session: { main: { lastRoute: { channel: "phone_chat" } } },
      }),
    ).not.toThrow();
  });

  it("reports a section of the wrong type", () => {
    expect(problem({ hooks: null })).toBe("hooks must be an object");
    expect(problem({ agents: [] })).toBe("agents must be an object");
  });
});

describe("the one ConfigError", () => {
  it("lists every problem, one line each, sorted by key", () => {
    expect(problem({ hooks: { enabled: true, path: "/", maxBodyBytes: -1, tokn: TOKEN }, agents: { defaults: { timeoutSeconds: -1 } } })).toBe(
      [
        "agents.defaults.timeoutSeconds must be greater than 0",
        "hooks.maxBodyBytes must be at least 1",
        'hooks.path must not be "/" alone',
        "hooks.token is required when hooks.enabled is true",
        "hooks.tokn is not a known key (did you mean hooks.token?)",
      ].join("\n"),
    );
  });

  it("names both problems of { enabled: true, maxBodyBytes: 0 } (regression: only the token was reported)", () => {
    expect(problem({ hooks: { enabled: true, maxBodyBytes: 0 } }).split("\n")).toEqual([
      "hooks.maxBodyBytes must be at least 1",
      "hooks.token is required when hooks.enabled is true",
    ]);
  });

  it("resolveConfig reads no secret: an unset variable passes activation and fails where the token is read", () => {
    const raw = { hooks: { enabled: true, token: { env: "HOOK_TOKEN" } } };
    const config = resolveConfig(raw, { configDir: CONFIG_DIR, env: {} });
    expect(config.tokenSource).toEqual({ env: "HOOK_TOKEN" });
    expect("token" in config).toBe(false);
    expect(() => resolveHooksSecrets(config, { configDir: CONFIG_DIR, env: {} })).toThrow(
      new ConfigError("hooks.token refers to environment variable HOOK_TOKEN, which is not set or empty"),
    );
    expect(problem({ hooks: { ...raw.hooks, maxBodyBytes: 0 } })).toBe("hooks.maxBodyBytes must be at least 1");
  });

  it("a token from a variable that is both short and spaced names both rules", () => {
    expect(problem({ hooks: { enabled: true, token: { env: "T" } } }, { T: "Zq9 short" }).split("\n")).toEqual([
      "hooks.token (from environment variable T) must be at least 16 characters long (after trimming)",
      "hooks.token (from environment variable T) must contain only printable ASCII characters (no spaces inside)",
    ]);
  });

  it("never echoes a token value, a wrong value, or a stack trace", () => {
    const secret = "S3cr3t-with space-inside";
    const messages = [
      problem({ hooks: { enabled: true, token: secret } }),
      problem({ hooks: { enabled: true, token: "Zq9shortsecret" } }),
      problem({ hooks: { enabled: true, token: TOKEN }, gateway: { auth: { token: TOKEN } } }),
      problem({ hooks: { enabled: true, token: TOKEN, mail: { imap: { host: "h", user: "u", password: "Pw-Zq9-plain" } } } }),
      problem({ hooks: { enabled: true, token: TOKEN, path: "/Zq9?x" } }),
    ];
    for (const m of messages) {
      expect(m).not.toContain(secret);
      expect(m).not.toContain("Zq9");
      expect(m).not.toContain(TOKEN);
      expect(m).not.toMatch(/\n\s+at /);
    }
  });
});

describe("checkConfig: the parts that passed the schema, for the compile-time checks", () => {
  it("a valid config: no problem, and the compilable parts are the config itself", () => {
    const r = checkConfig({ hooks: { enabled: true, token: TOKEN, presets: ["mail"] } }, { configDir: CONFIG_DIR });
    expect(r.problems).toEqual([]);
    expect(r.compilable).toBe(r.config);
  });

  it("a schema problem keeps the rest compilable: failed mapping fields, presets whose section failed and transforms under a bad transformsDir are left out", () => {
    const r = checkConfig(
      {
        hooks: {
          enabled: true,
          token: "short",
          presets: ["github", "gihtub", 5],
          github: { secret: 5 },
          transformsDir: 7,
          mappings: [
            { match: { path: "a" }, action: "wakey", messageTemplate: "{{ x" },
            "not a mapping",
            { match: { path: "c" }, messageTemplate: "m", transform: { module: "t.js" } },
          ],
        },
      },
      { configDir: CONFIG_DIR },
    );
    expect(r.config).toBeUndefined();
    expect(r.problems.map((p) => p.key)).toEqual([
      "hooks.github.secret",
      "hooks.mappings[0].action",
      "hooks.mappings[1]",
      "hooks.presets[2]",
      "hooks.token",
      "hooks.transformsDir",
    ]);
    expect(r.compilable?.presets).toEqual([undefined, "gihtub", undefined]);
    expect(r.compilable?.github).toBeUndefined();
    expect(r.compilable?.mappings).toEqual([
      { id: "mapping-1", action: "agent", match: { path: "a" }, messageTemplate: "{{ x" },
      undefined,
      { id: "mapping-3", action: "agent", match: { path: "c" }, messageTemplate: "m" },
    ]);
  });

  it("hooks that is not an object: nothing to compile", () => {
    const r = checkConfig({ hooks: "on" }, { configDir: CONFIG_DIR });
    expect(r.problems).toEqual([{ key: "hooks", rule: expect.any(String) }]);
    expect(r.compilable).toBeUndefined();
  });
});
