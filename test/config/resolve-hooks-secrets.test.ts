/**
 * resolveHooksSecrets(): the hook token read where it is used — plain text, an
 * environment variable or a file (presence, length, characters), never echoed —
 * and token ≠ gateway.auth.token.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { resolveConfig, resolveHooksSecrets } from "../../src/config/resolve";

import { CONFIG_DIR, problem, resolve, TOKEN } from "./resolve-support";

describe("hooks.token sources", () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "hooks-config-"));
    fs.mkdirSync(path.join(dir, "secrets"));
    fs.writeFileSync(path.join(dir, "secrets", "hook-token"), `  ${TOKEN}\n`);
    fs.writeFileSync(path.join(dir, "secrets", "empty"), " \n");
    fs.writeFileSync(path.join(dir, "secrets", "short"), "Zq9shortsecret\n");
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("plain text is trimmed", () => {
    expect(resolve({ hooks: { enabled: true, token: `\t ${TOKEN} \n` } }).token).toBe(TOKEN);
  });

  it("{ env } reads the variable from ctx.env, trimmed", () => {
    expect(resolve({ hooks: { enabled: true, token: { env: "HOOK_TOKEN" } } }, { HOOK_TOKEN: ` ${TOKEN} ` }).token).toBe(TOKEN);
  });

  it("{ env } defaults to process.env", () => {
    process.env.INBOUND_WEBHOOKS_TEST_TOKEN = TOKEN;
    try {
      const config = resolveConfig({ hooks: { enabled: true, token: { env: "INBOUND_WEBHOOKS_TEST_TOKEN" } } }, { configDir: CONFIG_DIR });
      expect(resolveHooksSecrets(config, { configDir: CONFIG_DIR }).token).toBe(TOKEN);
    } finally {
      delete process.env.INBOUND_WEBHOOKS_TEST_TOKEN;
    }
  });

  it("{ env } with a missing or blank variable names hooks.token and the variable", () => {
    const raw = { hooks: { enabled: true, token: { env: "HOOK_TOKEN" } } };
    const expected = "hooks.token refers to environment variable HOOK_TOKEN, which is not set or empty";
    expect(problem(raw, {})).toBe(expected);
    expect(problem(raw, { HOOK_TOKEN: "   " })).toBe(expected);
  });

  it("{ env } with a short value names the variable and never echoes the value", () => {
    const msg = problem({ hooks: { enabled: true, token: { env: "HOOK_TOKEN" } } }, { HOOK_TOKEN: "Zq9shortsecret" });
    expect(msg).toBe("hooks.token (from environment variable HOOK_TOKEN) must be at least 16 characters long (after trimming)");
    expect(msg).not.toContain("Zq9shortsecret");
  });

  it("{ env } with spaces inside names the character rule", () => {
    expect(problem({ hooks: { enabled: true, token: { env: "T" } } }, { T: "0123456789 abcdefgh" })).toBe(
      "hooks.token (from environment variable T) must contain only printable ASCII characters (no spaces inside)",
    );
  });

  it("{ file } is read relative to configDir and trimmed", () => {
    expect(resolve({ hooks: { enabled: true, token: { file: "secrets/hook-token" } } }, {}, dir).token).toBe(TOKEN);
  });

  it("{ file } accepts an absolute path", () => {
    const file = path.join(dir, "secrets", "hook-token");
    expect(resolve({ hooks: { enabled: true, token: { file } } }, {}, "/elsewhere").token).toBe(TOKEN);
  });

  it("{ file } that is missing, empty or short is reported with the file's path", () => {
    const missing = path.join(dir, "secrets", "missing");
    expect(problem({ hooks: { enabled: true, token: { file: "secrets/missing" } } }, {}, dir)).toBe(
      `hooks.token refers to file ${missing}, which cannot be read (ENOENT)`,
    );
    expect(problem({ hooks: { enabled: true, token: { file: "secrets/empty" } } }, {}, dir)).toBe(
      `hooks.token refers to file ${path.join(dir, "secrets", "empty")}, which is empty`,
    );
    const short = problem({ hooks: { enabled: true, token: { file: "secrets/short" } } }, {}, dir);
    expect(short).toBe(`hooks.token (from file ${path.join(dir, "secrets", "short")}) must be at least 16 characters long (after trimming)`);
    expect(short).not.toContain("Zq9shortsecret");
  });

  it("{ file } pointing at a directory is reported, not thrown raw", () => {
    expect(problem({ hooks: { enabled: true, token: { file: "secrets" } } }, {}, dir)).toBe(
      `hooks.token refers to file ${path.join(dir, "secrets")}, which cannot be read (EISDIR)`,
    );
  });
});

describe("hooks.token must differ from gateway.auth.token", () => {
  it("compares after trimming both", () => {
    expect(problem({ hooks: { enabled: true, token: ` ${TOKEN}` }, gateway: { auth: { token: `${TOKEN}\n` } } })).toBe(
      "hooks.token must differ from gateway.auth.token (use a dedicated hook token)",
    );
  });

  it("compares the resolved values when either is a reference", () => {
    const env = { HOOK_TOKEN: TOKEN, GATEWAY_TOKEN: TOKEN };
    expect(problem({ hooks: { enabled: true, token: { env: "HOOK_TOKEN" } }, gateway: { auth: { token: TOKEN } } }, env)).toBe(
      "hooks.token must differ from gateway.auth.token (use a dedicated hook token)",
    );
    expect(problem({ hooks: { enabled: true, token: TOKEN }, gateway: { auth: { token: { env: "GATEWAY_TOKEN" } } } }, env)).toBe(
      "hooks.token must differ from gateway.auth.token (use a dedicated hook token)",
    );
  });

  it("a different gateway token, or one that does not resolve, is fine", () => {
    expect(resolve({ hooks: { enabled: true, token: TOKEN }, gateway: { auth: { token: "gw_0123456789abcdef" } } }).token).toBe(TOKEN);
    expect(resolve({ hooks: { enabled: true, token: TOKEN }, gateway: { auth: { token: { env: "UNSET_GW" } } } }).token).toBe(TOKEN);
  });

  it("gateway.auth.token of the wrong type is reported", () => {
    expect(problem({ hooks: {}, gateway: { auth: { token: 5 } } })).toBe('gateway.auth.token must be a string, { "env": "NAME" } or { "file": "path" }');
  });
});
