/**
 * `hooks.store` (SPEC §16, docs/scale.md): SQLite by default; Postgres named with a url
 * given as plain text, { env } or { file }; every problem named by its key at start, and
 * never the url's password.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkConfig } from "../../src/config/resolve";
import { resolveStoreUrl } from "../../src/config/store-config";
import { CONFIG_DIR, resolve, TOKEN } from "./resolve-support";

const withStore = (store: unknown) => ({ hooks: { enabled: true, token: TOKEN, store } });
const problems = (raw: Record<string, unknown>) => checkConfig(raw, { configDir: CONFIG_DIR }).problems.map((p) => `${p.key} ${p.rule}`);

describe("hooks.store", () => {
  it('defaults to { kind: "sqlite" }: the README\'s config has no store key', () => {
    expect(resolve({ hooks: { enabled: true, token: TOKEN } }).store).toEqual({ kind: "sqlite" });
  });

  it("a postgres store gets the documented defaults and keeps the url as configured (not read)", () => {
    expect(resolve(withStore({ kind: "postgres", url: { env: "PG_URL" } })).store).toEqual({
      kind: "postgres",
      urlSource: { env: "PG_URL" },
      poolMax: 10,
      connectTimeoutMs: 5000,
      leaseSeconds: 30,
    });
  });

  it("names every problem of the section by its key", () => {
    expect(problems(withStore({ kind: "postgres", poolMax: 0, leaseSeconds: 1, extra: true }))).toEqual([
      "hooks.store.extra is not a known key; known keys here: kind, url, poolMax, connectTimeoutMs, leaseSeconds",
      "hooks.store.leaseSeconds must be at least 5",
      "hooks.store.poolMax must be at least 1",
      'hooks.store.url is required when hooks.store.kind is "postgres"',
    ]);
    expect(problems(withStore({ kind: "mysql" }))).toEqual(['hooks.store.kind must be one of: sqlite, postgres (got "mysql")']);
  });

  it("refuses the Postgres keys with the SQLite store", () => {
    expect(problems(withStore({ kind: "sqlite", url: "postgres://h/db", poolMax: 3 }))).toEqual([
      'hooks.store.poolMax applies only with hooks.store.kind "postgres" (the SQLite store is the file in the state dir)',
      'hooks.store.url applies only with hooks.store.kind "postgres" (the SQLite store is the file in the state dir)',
    ]);
  });

  it("never echoes a bad url given in plain text (it may hold the password)", () => {
    const lines = problems(withStore({ kind: "postgres", url: { env: "X", file: "y" } }));
    expect(lines).toEqual(["hooks.store.url must have only one of: env, file"]);
  });
});

describe("resolveStoreUrl", () => {
  it("reads the url from the environment and hands back its password to hide", () => {
    const r = resolveStoreUrl({ env: "PG_URL" }, { configDir: CONFIG_DIR, env: { PG_URL: " postgres://app:s%40cret@db.internal:5433/hooks " } });
    expect(r).toEqual({ ok: true, url: "postgres://app:s%40cret@db.internal:5433/hooks", password: "s@cret" });
  });

  it("reads it from a file relative to the config dir", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "store-url-"));
    fs.writeFileSync(path.join(dir, "pg-url"), "postgresql://app@127.0.0.1/hooks\n");
    expect(resolveStoreUrl({ file: "pg-url" }, { configDir: dir })).toEqual({ ok: true, url: "postgresql://app@127.0.0.1/hooks", password: "" });
    fs.rmSync(dir, { recursive: true });
  });

  it.each<[string, string | { env: string }, NodeJS.ProcessEnv, string]>([
    ["an unset variable", { env: "PG_URL" }, {}, "refers to environment variable PG_URL, which is not set or empty"],
    ["not a url", "hunter2-secret at db", {}, "is not a url: postgres://user:password@host:port/database"],
    ["another scheme", "mysql://app:hunter2-secret@db/hooks", {}, "must start with postgres:// or postgresql:// (it starts with mysql://)"],
    [
      "from the environment, another scheme",
      { env: "U" },
      { U: "https://app:hunter2-secret@db/x" },
      "(from environment variable U) must start with postgres:// or postgresql:// (it starts with https://)",
    ],
    ["no host", "postgres:///hooks?password=hunter2-secret", {}, "names no host: postgres://user:password@host:port/database"],
  ])("names hooks.store.url for %s, without the url", (_name, source, env, rule) => {
    const r = resolveStoreUrl(source, { configDir: CONFIG_DIR, env });
    expect(r).toEqual({ ok: false, problems: [{ key: "hooks.store.url", rule }] });
    expect(JSON.stringify(r)).not.toContain("hunter2");
  });
});
