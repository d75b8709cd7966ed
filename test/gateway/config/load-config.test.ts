import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadGatewayConfig, locateConfig } from "../../../src/gateway/config/load-config";
import { GatewayConfigError } from "../../../src/gateway/config/config-error";
import { parseDuration } from "../../../src/gateway/config/duration";
import { resolveGatewayAuthToken } from "../../../src/gateway/config/auth-token";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gw-cfg-"));
const write = (dir: string, name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};
function configError(fn: () => unknown): GatewayConfigError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GatewayConfigError) return e;
    throw e;
  }
  throw new Error("expected a GatewayConfigError");
}

describe("locateConfig", () => {
  it("prefers --config, then $GATEWAY_CONFIG, then ./gateway.config.json, else the demo default", () => {
    const dir = tmp();
    expect(locateConfig({ cwd: dir, env: {} })).toEqual({ from: "demo" });
    write(dir, "gateway.config.json", "{}");
    expect(locateConfig({ cwd: dir, env: {} })).toEqual({ from: "cwd", path: path.join(dir, "gateway.config.json") });
    expect(locateConfig({ cwd: dir, env: { GATEWAY_CONFIG: "other.json" } })).toEqual({ from: "env", path: path.join(dir, "other.json") });
    expect(locateConfig({ cwd: dir, env: { GATEWAY_CONFIG: "other.json" }, configFlag: "/x/flag.json" })).toEqual({ from: "flag", path: "/x/flag.json" });
  });
});

describe("loadGatewayConfig", () => {
  it("parses JSON5, applies defaults and resolves paths against the config file's directory", () => {
    const dir = tmp();
    const file = write(
      dir,
      "gw.json5",
      `{
      // comments and trailing commas are fine
      gateway: { stateDir: "state", },
      plugins: { paths: ["../p1"] },
      agents: { defaults: { models: { "openai/gpt-4o": { alias: "smart" }, "local/x": {} } } },
    }`,
    );
    const { config, located } = loadGatewayConfig({ configFlag: file, cwd: "/", env: {} });
    expect(located.from).toBe("flag");
    expect(config.configPath).toBe(file);
    expect(config.configDir).toBe(dir);
    expect(config.stateDir).toBe(path.join(dir, "state"));
    expect(config.pluginPaths).toEqual([path.resolve(dir, "../p1")]);
    expect(config.bind).toBe("127.0.0.1");
    expect(config.port).toBe(18789);
    expect(config.heartbeatEveryMs).toBe(30 * 60_000);
    expect(config.heartbeatMaxPromptChars).toBe(100_000);
    expect(config.mainMaxPending).toBe(10_000);
    expect(config.runner).toEqual({ kind: "echo", delayMs: 0 });
    expect(config.models).toEqual([{ ref: "openai/gpt-4o", alias: "smart" }, { ref: "local/x" }]);
    expect(config.defaultTimeoutSeconds).toBe(600);
    expect(config.demo).toBe(false);
  });

  it("uses --port over gateway.port", () => {
    const dir = tmp();
    const file = write(dir, "c.json", '{"gateway":{"port":1234}}');
    expect(loadGatewayConfig({ configFlag: file, portOverride: 0, env: {} }).config.port).toBe(0);
    expect(loadGatewayConfig({ configFlag: file, env: {} }).config.port).toBe(1234);
  });

  it('gateway.durability defaults to hooks.durability, else "process"; its own value wins', () => {
    const dir = tmp();
    const durability = (text: string) => loadGatewayConfig({ configFlag: write(dir, "d.json", text), env: {} }).config.durability;
    expect(durability("{}")).toBe("process");
    expect(durability('{"hooks":{"durability":"os"}}')).toBe("os");
    expect(durability('{"hooks":{"durability":"os"},"gateway":{"durability":"process"}}')).toBe("process");
    expect(durability('{"gateway":{"durability":"os"}}')).toBe("os");
  });

  it("refuses a gateway.durability that is neither process nor os", () => {
    const dir = tmp();
    const file = write(dir, "c.json", '{"gateway":{"durability":"disk"}}');
    expect(configError(() => loadGatewayConfig({ configFlag: file, env: {} })).message).toMatch(
      new RegExp(`^invalid config ${file}: gateway\\.durability must be one of: process, os`),
    );
  });

  it("names the file, line and column of a JSON syntax error", () => {
    const dir = tmp();
    const file = write(dir, "bad.json", '{\n  "gateway": { "port": 1 ,, }\n}');
    const e = configError(() => loadGatewayConfig({ configFlag: file, env: {} }));
    expect(e.file).toBe(file);
    expect(e.message).toMatch(new RegExp(`^invalid config ${file}: is not valid JSON: .* at line 2, column \\d+$`));
  });

  it("names the key of a value of the wrong type", () => {
    const dir = tmp();
    const file = write(dir, "c.json", '{"gateway":{"port":"eighty"}}');
    const e = configError(() => loadGatewayConfig({ configFlag: file, env: {} }));
    expect(e.message).toBe(`invalid config ${file}: gateway.port must be an integer`);
  });

  it("refuses unknown keys under gateway and out-of-range ports", () => {
    const dir = tmp();
    const a = write(dir, "a.json", '{"gateway":{"prot":80}}');
    expect(configError(() => loadGatewayConfig({ configFlag: a, env: {} })).message).toBe(
      `invalid config ${a}: gateway.prot is not a known key (did you mean gateway.port?)`,
    );
    const b = write(dir, "b.json", '{"gateway":{"port":70000}}');
    expect(configError(() => loadGatewayConfig({ configFlag: b, env: {} })).message).toBe(`invalid config ${b}: gateway.port must be at most 65535`);
  });

  it("lists every problem of the gateway's keys at once, sorted by key, one line each", () => {
    const dir = tmp();
    const file = write(
      dir,
      "c.json",
      JSON.stringify({
        gateway: { port: "eighty", lgoLevel: "info", auth: { token: { env: "A", file: "b" } } },
        agents: { runner: { kind: "openai" }, defaults: { heartbeat: { every: "soon" } } },
      }),
    );
    const e = configError(() => loadGatewayConfig({ configFlag: file, env: {} }));
    expect(e.problems.map((p) => `${p.key} ${p.rule}`)).toEqual([
      'agents.defaults.heartbeat.every must be a duration like "30m", "45s" or "1h", or 0 / "off" to disable',
      'agents.runner.baseUrl is required when agents.runner.kind is "openai"',
      "gateway.auth.token must have only one of: env, file",
      "gateway.lgoLevel is not a known key (did you mean gateway.logLevel?)",
      "gateway.port must be an integer",
    ]);
    expect(e.message.split("\n")).toEqual(e.problems.map((p) => `invalid config ${file}: ${p.key} ${p.rule}`));
  });

  it("reports a missing config file given with --config", () => {
    const e = configError(() => loadGatewayConfig({ configFlag: "/nonexistent/gw.json", env: {} }));
    expect(e.message).toBe("invalid config /nonexistent/gw.json: the file does not exist");
  });

  it("requires a top-level object", () => {
    const dir = tmp();
    const file = write(dir, "c.json", "[1,2]");
    expect(configError(() => loadGatewayConfig({ configFlag: file, env: {} })).message).toBe(
      `invalid config ${file}: must contain a JSON object at the top level`,
    );
  });

  it("validates the openai runner and the heartbeat period", () => {
    const dir = tmp();
    const noUrl = write(dir, "a.json", '{"agents":{"runner":{"kind":"openai","model":"openai/x"}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: noUrl, env: {} })).key).toBe("agents.runner.baseUrl");
    const noModel = write(dir, "b.json", '{"agents":{"runner":{"kind":"openai","baseUrl":"http://127.0.0.1:1/v1"}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: noModel, env: {} })).key).toBe("agents.runner.model");
    const badKind = write(dir, "c.json", '{"agents":{"runner":{"kind":"claude"}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: badKind, env: {} })).message).toBe(
      `invalid config ${badKind}: agents.runner.kind must be one of: echo, openai (got "claude")`,
    );
    const every = write(dir, "d.json", '{"agents":{"defaults":{"heartbeat":{"every":"soon"}}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: every, env: {} })).key).toBe("agents.defaults.heartbeat.every");
    const ok = write(
      dir,
      "e.json",
      '{"agents":{"runner":{"kind":"openai","baseUrl":"http://127.0.0.1:1/v1/","model":"openai/gpt"},"defaults":{"heartbeat":{"every":"off"}}}}',
    );
    const { config } = loadGatewayConfig({ configFlag: ok, env: {} });
    expect(config.runner).toEqual({ kind: "openai", baseUrl: "http://127.0.0.1:1/v1", model: "openai/gpt" });
    expect(config.defaultModel).toBe("openai/gpt");
    expect(config.heartbeatEveryMs).toBe(0);
  });

  it("reads agents.defaults.heartbeat.maxPromptChars and session.main.maxPending, and names each when invalid", () => {
    const dir = tmp();
    const ok = write(dir, "a.json", '{"agents":{"defaults":{"heartbeat":{"maxPromptChars":20000}}},"session":{"main":{"maxPending":50}}}');
    const { config } = loadGatewayConfig({ configFlag: ok, env: {} });
    expect([config.heartbeatMaxPromptChars, config.mainMaxPending]).toEqual([20_000, 50]);
    const small = write(dir, "b.json", '{"agents":{"defaults":{"heartbeat":{"maxPromptChars":999}}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: small, env: {} })).message).toBe(
      `invalid config ${small}: agents.defaults.heartbeat.maxPromptChars must be at least 1000`,
    );
    const zero = write(dir, "c.json", '{"session":{"main":{"maxPending":0}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: zero, env: {} })).message).toBe(
      `invalid config ${zero}: session.main.maxPending must be at least 1`,
    );
    const fraction = write(dir, "d.json", '{"session":{"main":{"maxPending":2.5}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: fraction, env: {} })).key).toBe("session.main.maxPending");
  });

  it("reads gateway.journal.maxBytes (default 64 MiB) and names it when invalid", () => {
    const dir = tmp();
    expect(loadGatewayConfig({ configFlag: write(dir, "a.json", "{}"), env: {} }).config.journalMaxBytes).toBe(67_108_864);
    expect(loadGatewayConfig({ configFlag: write(dir, "b.json", '{"gateway":{"journal":{"maxBytes":65536}}}'), env: {} }).config.journalMaxBytes).toBe(65_536);
    const small = write(dir, "c.json", '{"gateway":{"journal":{"maxBytes":1000}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: small, env: {} })).message).toBe(
      `invalid config ${small}: gateway.journal.maxBytes must be at least 65536`,
    );
    const text = write(dir, "d.json", '{"gateway":{"journal":{"maxBytes":"64MB"}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: text, env: {} })).message).toBe(
      `invalid config ${text}: gateway.journal.maxBytes must be an integer`,
    );
    const unknown = write(dir, "e.json", '{"gateway":{"journal":{"maxFiles":3}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: unknown, env: {} })).message).toBe(
      `invalid config ${unknown}: gateway.journal.maxFiles is not a known key; known keys here: maxBytes`,
    );
  });

  it("reads session.hooks.retentionDays (default 7) and names it when invalid", () => {
    const dir = tmp();
    expect(loadGatewayConfig({ configFlag: write(dir, "a.json", "{}"), env: {} }).config.hookSessionRetentionDays).toBe(7);
    expect(loadGatewayConfig({ configFlag: write(dir, "b.json", '{"session":{"hooks":{"retentionDays":2}}}'), env: {} }).config.hookSessionRetentionDays).toBe(
      2,
    );
    const zero = write(dir, "c.json", '{"session":{"hooks":{"retentionDays":0}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: zero, env: {} })).message).toBe(
      `invalid config ${zero}: session.hooks.retentionDays must be at least 1`,
    );
    const typo = write(dir, "d.json", '{"session":{"hooks":{"retentionDay":2}}}');
    expect(configError(() => loadGatewayConfig({ configFlag: typo, env: {} })).key).toBe("session.hooks.retentionDay");
  });

  it("keeps gateway.auth.token as configured: loading reads no secret (regression: an unset variable failed every command)", () => {
    const dir = tmp();
    const file = write(dir, "c.json", '{"gateway":{"auth":{"token":{"env":"GW_TOKEN"}}}}');
    const { config } = loadGatewayConfig({ configFlag: file, env: {} });
    expect(config.authTokenSource).toEqual({ env: "GW_TOKEN" });
  });

  it("resolveGatewayAuthToken reads it from the environment, trimmed, and names a missing variable", () => {
    const dir = tmp();
    const file = write(dir, "c.json", '{"gateway":{"auth":{"token":{"env":"GW_TOKEN"}}}}');
    const { config } = loadGatewayConfig({ configFlag: file, env: {} });
    expect(resolveGatewayAuthToken(config, { GW_TOKEN: " op-secret " })).toBe("op-secret");
    expect(configError(() => resolveGatewayAuthToken(config, {})).message).toBe(
      `invalid config ${file}: gateway.auth.token refers to environment variable GW_TOKEN, which is not set or empty`,
    );
    expect(resolveGatewayAuthToken({ ...config, authTokenSource: undefined }, {})).toBeUndefined();
    expect(resolveGatewayAuthToken({ ...config, authTokenSource: " plain-op " }, {})).toBe("plain-op");
  });

  it("resolveGatewayAuthToken reads a file relative to the config file", () => {
    const dir = tmp();
    write(dir, "op-token", "file-secret\n");
    const file = write(dir, "c.json", '{"gateway":{"auth":{"token":{"file":"op-token"}}}}');
    expect(resolveGatewayAuthToken(loadGatewayConfig({ configFlag: file, env: {} }).config, {})).toBe("file-secret");
    const missing = write(dir, "m.json", '{"gateway":{"auth":{"token":{"file":"nope"}}}}');
    expect(configError(() => resolveGatewayAuthToken(loadGatewayConfig({ configFlag: missing, env: {} }).config, {})).message).toBe(
      `invalid config ${missing}: gateway.auth.token refers to file ${path.join(dir, "nope")}, which cannot be read (ENOENT)`,
    );
  });

  it("builds the demo default with a token generated once and kept in the state dir", () => {
    const dir = tmp();
    const first = loadGatewayConfig({ cwd: dir, env: {} });
    expect(first.located.from).toBe("demo");
    expect(first.config.demo).toBe(true);
    expect(first.config.stateDir).toBe(path.join(dir, ".gateway"));
    const hooks = first.config.raw.hooks as { enabled: boolean; token: string; path: string };
    expect(hooks.enabled).toBe(true);
    expect(hooks.path).toBe("/hooks");
    expect(hooks.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(first.demoToken?.firstShow).toBe(true);
    const file = path.join(dir, ".gateway", "hook-token");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const second = loadGatewayConfig({ cwd: dir, env: {} });
    expect((second.config.raw.hooks as { token: string }).token).toBe(hooks.token);
  });
});

describe("parseDuration", () => {
  it.each([
    ["30m", 1_800_000],
    ["45s", 45_000],
    ["1h30m", 5_400_000],
    ["500ms", 500],
    ["off", 0],
    [0, 0],
    ["0", 0],
  ])("%p → %p", (input, ms) => expect(parseDuration(input)).toBe(ms));
  it.each([["soon"], [30], ["-1m"], [""]])("%p is not a duration", (input) => expect(parseDuration(input)).toBeUndefined());
});
