/**
 * Against the real `gateway` process (built dist): a bad config file makes
 * `gateway start` exit non-zero with one line per problem, each naming the file
 * and the key — every problem in one start, in the same words whether the
 * gateway's schema check or the plugin found it; bad flags too; --help
 * everywhere. Secrets are read where they are used: commands that need no
 * secret work while a secret's variable is unset, and `start` fails naming it.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, REPO_ROOT, runGatewayCli, startGateway } from "../helpers/gateway-process";

function writeConfig(text: string): string {
  const file = path.join(makeGatewayDir("gw-badcfg-"), "gateway.config.json");
  fs.writeFileSync(file, text);
  return file;
}

/** The stderr lines of a `gateway start` that must fail (exit 1, never listening, no stack trace). */
async function startFailsWith(file: string, env: Record<string, string | undefined> = {}): Promise<string[]> {
  const r = await runGatewayCli(["start", "--config", file, "--port", "0"], { env });
  expect(r.code).toBe(1);
  expect(r.stdout).not.toContain("listening:");
  expect(r.stderr).not.toMatch(/\n\s+at /);
  return r.stderr.trim().split("\n");
}

/** The one stderr line of a `gateway start` that must fail. */
async function startFails(file: string): Promise<string> {
  const lines = await startFailsWith(file);
  expect(lines).toHaveLength(1);
  return lines[0]!;
}

describe("gateway e2e: bad config", () => {
  it("invalid JSON: names the file and the position", async () => {
    const file = writeConfig('{ "hooks": { "enabled": true, }, oops }');
    expect(await startFails(file)).toMatch(new RegExp(`^gateway: invalid config ${file}: is not valid JSON: .+ at line 1, column \\d+$`));
  });

  it("wrong type for a gateway key: names the key", async () => {
    const file = writeConfig('{ "gateway": { "port": "eighty" } }');
    expect(await startFails(file)).toBe(`gateway: invalid config ${file}: gateway.port must be an integer`);
  });

  it("wrong type for a hooks key: names the key", async () => {
    const file = writeConfig('{ "hooks": { "enabled": "yes", "token": "0123456789abcdef0123" } }');
    expect(await startFails(file)).toMatch(new RegExp(`^gateway: invalid config ${file}: hooks\\.enabled .+`));
  });

  it("hooks enabled without a token: names hooks.token", async () => {
    const file = writeConfig('{ "hooks": { "enabled": true } }');
    expect(await startFails(file)).toMatch(new RegExp(`^gateway: invalid config ${file}: .*hooks\\.token.*`));
  });

  // SPEC §3: the rule in words, never a regular expression.
  it.each([
    ['"token": "short-token"', "hooks.token must be at least 16 characters long (after trimming)"],
    ['"token": "0123456789 abcdef0123"', "hooks.token must contain only printable ASCII characters (no spaces inside)"],
    ['"token": "0123456789abcdef0123", "path": "/"', 'hooks.path must not be "/" alone'],
    ['"token": "0123456789abcdef0123", "path": ""', "hooks.path must not be empty"],
    [
      '"token": "0123456789abcdef0123", "path": "/hooks?x"',
      "hooks.path may contain only letters, digits, '-', '_', '.', '~' and '/' (no '?', '#', '%' or whitespace)",
    ],
    [
      '"token": "0123456789abcdef0123", "mappings": [{ "id": "-x", "messageTemplate": "m" }]',
      "hooks.mappings[0].id must start with a letter or digit and contain only letters, digits, '.', '_', ':' and '-' (at most 128 characters)",
    ],
    [
      '"token": "0123456789abcdef0123", "mappings": [{ "match": { "path": "a" } }]',
      'hooks.mappings[0].messageTemplate is required when action is "agent" (the default) and the mapping has no transform',
    ],
  ])("hooks { %s } → the rule in words", async (fields, rule) => {
    const file = writeConfig(`{ "hooks": { "enabled": true, ${fields} } }`);
    const line = await startFails(file);
    expect(line).toBe(`gateway: invalid config ${file}: ${rule}`);
    expect(line).not.toMatch(/pattern|\^|\$"/);
  });

  it("hooks enabled without a token: the sentence of SPEC §3", async () => {
    const file = writeConfig('{ "hooks": { "enabled": true } }');
    expect(await startFails(file)).toBe(`gateway: invalid config ${file}: hooks.token is required when hooks.enabled is true`);
  });

  it("two problems in the hooks section: both lines, in key order, and exit 1 (regression: only the token was named)", async () => {
    const file = writeConfig('{ "hooks": { "enabled": true, "maxBodyBytes": 0 } }');
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: hooks.maxBodyBytes must be at least 1`,
      `gateway: invalid config ${file}: hooks.token is required when hooks.enabled is true`,
    ]);
  });

  it("bad templates in two mappings: every one named in one start (regression: only the first, a restart per problem)", async () => {
    const file = writeConfig(
      JSON.stringify({
        hooks: {
          enabled: true,
          token: "0123456789abcdef0123",
          mappings: [
            { match: { path: "a" }, messageTemplate: "{{ payload.x | nope }}" },
            { match: { path: "b" }, messageTemplate: "{{ payload.y", forEach: "a b" },
          ],
        },
      }),
    );
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: hooks.mappings[0].messageTemplate is not a valid template: unknown filter "nope" (available: default, json, truncate, lower, upper, trim) at character 1`,
      `gateway: invalid config ${file}: hooks.mappings[1].messageTemplate is not a valid template: unclosed '{{' at character 1`,
      `gateway: invalid config ${file}: hooks.mappings[1].forEach must be a payload path such as events or payload.entry[0].changes`,
    ]);
  });

  it("mistyped keys: the key meant is suggested, at every depth", async () => {
    const file = writeConfig(
      JSON.stringify({ hooks: { enabled: true, tokn: "0123456789abcdef0123", mappings: [{ mach: { path: "a" }, messageTemplate: "m" }] } }),
    );
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: hooks.mappings[0].mach is not a known key (did you mean hooks.mappings[0].match?)`,
      `gateway: invalid config ${file}: hooks.token is required when hooks.enabled is true`,
      `gateway: invalid config ${file}: hooks.tokn is not a known key (did you mean hooks.token?)`,
    ]);
  });

  it("problems of the gateway's own keys: every one at once", async () => {
    const file = writeConfig('{ "gateway": { "port": "eighty", "bnid": "127.0.0.1" }, "agents": { "defaults": { "heartbeat": { "every": "soon" } } } }');
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: agents.defaults.heartbeat.every must be a duration like "30m", "45s" or "1h", or 0 / "off" to disable`,
      `gateway: invalid config ${file}: gateway.bnid is not a known key (did you mean gateway.bind?)`,
      `gateway: invalid config ${file}: gateway.port must be an integer`,
    ]);
  });

  it("a config file that does not exist", async () => {
    const file = path.join(makeGatewayDir(), "missing.json");
    expect(await startFails(file)).toBe(`gateway: invalid config ${file}: the file does not exist`);
  });

  it("bad flags: one line, exit 1", async () => {
    const port = await runGatewayCli(["start", "--port", "abc"]);
    expect(port.code).toBe(1);
    expect(port.stderr).toContain('--port must be an integer between 0 and 65535 (got "abc")');
    const unknown = await runGatewayCli(["start", "--frobnicate"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("unknown option '--frobnicate'");
    const cmd = await runGatewayCli(["plugins", "explode"], { cwd: makeGatewayDir() });
    expect(cmd.code).toBe(1);
    expect(cmd.stderr).toContain("unknown command 'explode'");
  });

  it.each([[["--help"]], [["start", "--help"]], [["plugins", "--help"]], [["plugins", "install", "--help"]], [["plugins", "list", "--help"]]])(
    "%j prints usage and exits 0",
    async (args) => {
      const r = await runGatewayCli(args, { cwd: makeGatewayDir() });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/^Usage: gateway/);
    },
  );

  it("gateway --help --config <a file that is not JSON> still prints the help (was: exit 1, the file's path taken for a plugin command)", async () => {
    const r = await runGatewayCli(["--help", "--config", writeConfig("{ not json")], { cwd: makeGatewayDir() });
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(r.stdout).toMatch(/^Usage: gateway \[options\] \[command\]/);
  });
});

describe("gateway e2e: secrets are read where they are used", () => {
  const UNSET = "INBOUND_WEBHOOKS_E2E_UNSET_SECRET";
  const env = { [UNSET]: undefined };
  const PAYLOAD = path.join(REPO_ROOT, "test", "fixtures", "payloads", "github-push.json");
  let file: string;

  beforeAll(() => {
    file = writeConfig(
      JSON.stringify({
        gateway: { auth: { token: { env: `${UNSET}_GW` } } },
        hooks: {
          enabled: true,
          token: { env: UNSET },
          mappings: [{ id: "github", match: { path: "github" }, messageTemplate: "push to {{ payload.repository.full_name }}" }],
        },
      }),
    );
  });

  it("gateway webhooks test works while hooks.token's variable is unset (regression: it failed naming the variable)", async () => {
    const r = await runGatewayCli(["webhooks", "test", "github", "--payload", PAYLOAD, "--json", "--config", file], {
      env: { ...env, [`${UNSET}_GW`]: undefined },
    });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, mapping: { id: "github" } });
  });

  it("gateway plugins list and install work while the token variables are unset", async () => {
    const noSecrets = { ...env, [`${UNSET}_GW`]: undefined };
    const list = await runGatewayCli(["plugins", "list", "--json", "--config", file], { env: noSecrets });
    expect(list.stderr).toBe("");
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toContainEqual(expect.objectContaining({ id: "inbound-webhooks", status: "enabled" }));
    const install = await runGatewayCli(["plugins", "install", path.join(REPO_ROOT, "examples", "channel-plugin"), "--config", file], {
      env: noSecrets,
      timeoutMs: 60000,
    });
    expect(install.stderr).toBe("");
    expect(install.code).toBe(0);
    expect(install.stdout).toMatch(/^installed \S+ /);
  });

  it("gateway start fails naming hooks.token and the variable, never a value", async () => {
    // The token is read when the plugin's runs service starts, after the plugins' start-up log lines.
    const lines = await startFailsWith(file, { ...env, [`${UNSET}_GW`]: "gw-operator-secret-0123456789" });
    expect(lines.filter((l) => l.startsWith("gateway: "))).toEqual([
      `gateway: invalid config ${file}: hooks.token refers to environment variable ${UNSET}, which is not set or empty`,
    ]);
    expect(lines[lines.length - 1]).toMatch(/^gateway: invalid config /);
    expect(lines.join("\n")).not.toContain("gw-operator-secret");
  });

  it("gateway start fails naming gateway.auth.token when its variable is unset", async () => {
    const lines = await startFailsWith(file, { ...env, [`${UNSET}_GW`]: undefined });
    expect(lines).toEqual([`gateway: invalid config ${file}: gateway.auth.token refers to environment variable ${UNSET}_GW, which is not set or empty`]);
  });

  it("with the variables set, the started gateway serves hooks with the token read from the environment", async () => {
    const hookToken = "e2e-hook-token-from-env-0123456789";
    const gw = await startGateway({ configPath: file, env: { [UNSET]: hookToken, [`${UNSET}_GW`]: "gw-operator-secret-0123456789" } });
    try {
      const ok = await fetch(`${gw.baseUrl}/hooks/wake`, {
        method: "POST",
        headers: { authorization: `Bearer ${hookToken}`, "content-type": "application/json" },
        body: '{"text":"hi"}',
      });
      expect(ok.status).toBe(200);
      const wrong = await fetch(`${gw.baseUrl}/hooks/wake`, {
        method: "POST",
        headers: { authorization: "Bearer gw-operator-secret-0123456789", "content-type": "application/json" },
        body: '{"text":"hi"}',
      });
      expect(wrong.status).toBe(401);
    } finally {
      await gw.stop();
    }
  });
});

describe("gateway e2e: every problem of the gateway and of every plugin in one start", () => {
  it("gateway.bnid and a missing hooks.github.secret are both named (was: the secret only on the next start)", async () => {
    const file = writeConfig(JSON.stringify({ gateway: { bnid: "127.0.0.1" }, hooks: { enabled: true, token: "0123456789abcdef0123", presets: ["github"] } }));
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: gateway.bnid is not a known key (did you mean gateway.bind?)`,
      `gateway: invalid config ${file}: hooks.github.secret is required when hooks.presets includes "github" (hooks.presets[0])`,
    ]);
  });

  it("gateway webhooks deliveries list names the hooks problems beside a wrong gateway key, as start does (was: only gateway.*)", async () => {
    const file = writeConfig(JSON.stringify({ gateway: { port: "eighty" }, hooks: { enabled: true, token: "0123456789abcdef0123", maxBodyBytes: 0 } }));
    const r = await runGatewayCli(["webhooks", "deliveries", "list", "--config", file]);
    expect(r).toMatchObject({ code: 1, stdout: "" });
    expect(r.stderr.trim().split("\n")).toEqual([
      `gateway: cannot load plugin commands: invalid config ${file}: gateway.port must be an integer`,
      `gateway: cannot load plugin commands: invalid config ${file}: hooks.maxBodyBytes must be at least 1`,
    ]);
  });

  it("a wrong gateway key and a wrong hooks key (schema) are both named", async () => {
    const file = writeConfig(JSON.stringify({ gateway: { port: "eighty" }, hooks: { enabled: true, token: "0123456789abcdef0123", maxBodyBytes: 0 } }));
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: gateway.port must be an integer`,
      `gateway: invalid config ${file}: hooks.maxBodyBytes must be at least 1`,
    ]);
  });

  it("two unknown presets are both named (was: one per start)", async () => {
    const file = writeConfig(JSON.stringify({ hooks: { enabled: true, token: "0123456789abcdef0123", presets: ["mial", "github", "gitlab"], github: {} } }));
    expect(await startFailsWith(file)).toEqual([
      `gateway: invalid config ${file}: hooks.presets[0] names an unknown preset "mial"; available presets: mail, github`,
      `gateway: invalid config ${file}: hooks.github.secret is required when hooks.presets includes "github" (hooks.presets[1])`,
      `gateway: invalid config ${file}: hooks.presets[2] names an unknown preset "gitlab"; available presets: mail, github`,
    ]);
  });

  it('action "wakey" names the action it saw, and nothing about messageTemplate', async () => {
    const file = writeConfig(
      JSON.stringify({ hooks: { enabled: true, token: "0123456789abcdef0123", mappings: [{ match: { path: "x" }, action: "wakey" }] } }),
    );
    expect(await startFailsWith(file)).toEqual([`gateway: invalid config ${file}: hooks.mappings[0].action must be one of: wake, agent (got "wakey")`]);
  });
});

describe("gateway e2e: a schema problem no longer hides what the plugin finds compiling the config", () => {
  const TOKEN = "0123456789abcdef0123";
  const line = (file: string, problem: string) => `gateway: invalid config ${file}: ${problem}`;

  it("a schema problem hid the unknown preset until the next start", async () => {
    const file = writeConfig(JSON.stringify({ hooks: { enabled: true, token: "short", presets: ["gihtub"] } }));
    expect(await startFailsWith(file)).toEqual([
      line(file, "hooks.token must be at least 16 characters long (after trimming)"),
      line(file, 'hooks.presets[0] names an unknown preset "gihtub"; available presets: mail, github'),
    ]);
  });

  it("a schema problem hid the missing hooks.github.secret until the next start", async () => {
    const file = writeConfig(JSON.stringify({ hooks: { enabled: true, token: "short", presets: ["github"] } }));
    expect(await startFailsWith(file)).toEqual([
      line(file, "hooks.token must be at least 16 characters long (after trimming)"),
      line(file, 'hooks.github.secret is required when hooks.presets includes "github" (hooks.presets[0])'),
    ]);
  });

  it("a schema problem hid the bad templates, forEach and transform module until the next start (schema lines first, then in config order)", async () => {
    const file = writeConfig(
      JSON.stringify({
        hooks: {
          enabled: true,
          token: TOKEN,
          maxBodyBytes: 0,
          mappings: [
            { match: { path: "a" }, messageTemplate: "{{ payload.x | nope }}", forEach: "a b" },
            { match: { path: "b" }, transform: { module: "shape.js" } },
          ],
        },
      }),
    );
    expect(await startFailsWith(file)).toEqual([
      line(file, "hooks.maxBodyBytes must be at least 1"),
      line(
        file,
        'hooks.mappings[0].messageTemplate is not a valid template: unknown filter "nope" (available: default, json, truncate, lower, upper, trim) at character 1',
      ),
      line(file, "hooks.mappings[0].forEach must be a payload path such as events or payload.entry[0].changes"),
      line(file, `hooks.mappings[1].transform.module: hooks.transformsDir (${path.join(path.dirname(file), "hooks", "transforms")}) does not exist`),
    ]);
  });

  it("a gateway key, a hooks schema problem and an unknown preset: all three in one start", async () => {
    const file = writeConfig(JSON.stringify({ gateway: { bnid: "127.0.0.1" }, hooks: { enabled: true, token: TOKEN, maxBodyBytes: 0, presets: ["gitlab"] } }));
    expect(await startFailsWith(file)).toEqual([
      line(file, "gateway.bnid is not a known key (did you mean gateway.bind?)"),
      line(file, "hooks.maxBodyBytes must be at least 1"),
      line(file, 'hooks.presets[0] names an unknown preset "gitlab"; available presets: mail, github'),
    ]);
  });

  it("nothing that only follows from a schema problem: a wrong hooks.github, a wrong field's template, a wrong transformsDir", async () => {
    const file = writeConfig(
      JSON.stringify({
        hooks: {
          enabled: true,
          token: TOKEN,
          presets: ["github"],
          github: { secret: 5 },
          transformsDir: 7,
          mappings: [
            { match: { path: "a" }, action: "wakey", messageTemplate: "{{ payload.y" },
            { match: { path: "b" }, messageTemplate: 5 },
            { match: { path: "c" }, transform: { module: "shape.js" } },
          ],
        },
      }),
    );
    expect(await startFailsWith(file)).toEqual([
      line(file, "hooks.github.secret must be an object"),
      line(file, 'hooks.mappings[0].action must be one of: wake, agent (got "wakey")'),
      line(file, "hooks.mappings[1].messageTemplate must be a string"),
      line(file, "hooks.transformsDir must be a string"),
      line(file, "hooks.mappings[0].messageTemplate is not a valid template: unclosed '{{' at character 1"),
    ]);
  });
});
