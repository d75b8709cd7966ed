/**
 * `gateway webhooks mail setup|run` through commander, in process, with the plugin's
 * resolved config, a real IMAP server (dovecot) and a local hook receiver.
 */
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { Command, CommanderError } from "commander";
import { registerMailCommands } from "../../src/cli/mail-commands";
import { resolveConfig } from "../../src/config/resolve";
import type { PluginApi } from "../../src/host-contract/host-api";
import type { MappingEngine } from "../../src/mappings/engine";
import type { MailBatchPayload } from "../../src/mail/watcher/mail-payload";
import { createPluginLogger } from "../../src/logging/logger";
import { useMailFixture } from "../mail/helpers/mail-fixture";
import { plainMessage } from "../mail/helpers/messages";
import { createCheckpointStore } from "../../src/mail/watcher/checkpoint-store";

const TOKEN = "cli-test-token-0123456789abcdefghij";
const fx = useMailFixture("iw-mail-cli-");

interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** Builds the command tree as the host does and runs `args` (after `gateway`). */
async function cli(
  raw: Record<string, unknown>,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; stop?: AbortController; configPath?: string; hookUrl?: string } = {},
): Promise<CliRun> {
  const configPath = opts.configPath ?? path.join(fx.dir, "gateway.config.json");
  const api = { config: raw, configDir: fx.dir, configPath, stateDir: path.join(fx.dir, "state"), pluginId: "inbound-webhooks" } as unknown as PluginApi;
  const resolved = resolveConfig(raw, { configDir: fx.dir });
  // `hookUrl`: set after the config check, as a hook URL the check would refuse (the watcher's own redaction is under test).
  const config = opts.hookUrl === undefined || !resolved.mail ? resolved : { ...resolved, mail: { ...resolved.mail, hookUrl: opts.hookUrl } };
  let out = "";
  let err = "";
  const program = new Command("gateway").exitOverride().configureOutput({ writeOut: (s) => (out += s), writeErr: (s) => (err += s) });
  const webhooks = program.command("webhooks");
  const logs = createPluginLogger({ debug() {}, info() {}, warn() {}, error() {} });
  const stop = opts.stop ?? new AbortController();
  registerMailCommands(
    webhooks,
    { api, config, mappings: {} as MappingEngine, logs },
    {
      env: opts.env ?? {},
      cwd: () => fx.dir,
      stdin: Object.assign(new PassThrough(), { isTTY: false }),
      stopSignal: () => ({ signal: stop.signal, dispose() {} }),
    },
  );
  try {
    await program.parseAsync(["node", "gateway", "webhooks", ...args]);
    return { code: 0, out, err };
  } catch (e) {
    if (e instanceof CommanderError) return { code: e.exitCode, out, err };
    throw e;
  }
}

function mailConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    hooks: {
      enabled: true,
      token: TOKEN,
      presets: ["mail"],
      mail: {
        imap: { host: "127.0.0.1", port: fx.imap.port, tls: "none", user: fx.imap.user, password: { env: "IMAP_PW" }, mailbox: "INBOX" },
        hookUrl: fx.receiver.url,
        pollSeconds: 3600,
        ...extra,
      },
    },
  };
}

test("setup --json writes the config and prints a machine-readable report", async () => {
  const r = await cli(
    {},
    ["mail", "setup", "--host", "imap.gmail.com", "--user", "me@gmail.com", "--password-env", "GMAIL_APP_PASSWORD", "--no-input", "--json"],
    {
      configPath: path.join(fx.dir, "gw.json"),
    },
  );
  expect(r.code).toBe(0);
  const report = JSON.parse(r.out);
  expect(report).toMatchObject({ ok: true, configPath: path.join(fx.dir, "gw.json"), created: true, mail: "created", tokenCreated: true });
  expect(report.settings.imap).toEqual({
    host: "imap.gmail.com",
    port: 993,
    tls: "tls",
    user: "me@gmail.com",
    password: { env: "GMAIL_APP_PASSWORD" },
    mailbox: "INBOX",
  });
  expect(JSON.parse(fs.readFileSync(path.join(fx.dir, "gw.json"), "utf8")).hooks.presets).toEqual(["mail"]);
});

test("setup with --password exits 1 with the refusal on stderr (and as JSON with --json)", async () => {
  const r = await cli({}, ["mail", "setup", "--host", "h.example", "--user", "u", "--password", "hunter2"]);
  expect(r.code).toBe(1);
  expect(r.err).toMatch(/^webhooks mail setup: Refusing to store a plain-text IMAP password/);
  expect(r.err).not.toContain("hunter2");
  const j = await cli({}, ["mail", "setup", "--host", "h.example", "--user", "u", "--password", "hunter2", "--json"]);
  expect(j.code).toBe(1);
  expect(JSON.parse(j.out)).toMatchObject({ ok: false, code: "plain_password_refused" });
  expect(fs.existsSync(path.join(fx.dir, "gateway.config.json"))).toBe(false);
});

test("run --once delivers what is new and exits 0; a second --once finds nothing", async () => {
  const raw = mailConfig();
  const env = { IMAP_PW: fx.imap.password };
  expect((await cli(raw, ["mail", "run", "--once"], { env })).code).toBe(0);
  const m = plainMessage("cli once", "hello");
  await fx.imap.append(m.raw);
  const r = await cli(raw, ["mail", "run", "--once"], { env });
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^Done: 1 message\(s\) delivered in 1 post\(s\); the checkpoint is at UID \d+\.\n$/);
  expect(r.err).toContain("INFO mail: mail batch delivered");
  expect(fx.receiver.accepted().map((p) => (p.body as MailBatchPayload).messages[0]!.id)).toEqual([m.id]);
  const again = await cli(raw, ["mail", "run", "--once", "--json"], { env });
  expect(JSON.parse(again.out)).toMatchObject({ ok: true, stopped: false, delivered: 0, batches: 0 });
  expect(again.err).not.toContain(fx.imap.password);
  expect(again.err).not.toContain(TOKEN);
});

/** A watcher whose first `run --once` went through, with one new message ("hello") in the mailbox since. */
async function afterFirstRun(subject: string): Promise<{ raw: ReturnType<typeof mailConfig>; env: NodeJS.ProcessEnv }> {
  const raw = mailConfig();
  const env = { IMAP_PW: fx.imap.password };
  expect((await cli(raw, ["mail", "run", "--once"], { env })).code).toBe(0);
  await fx.imap.append(plainMessage(subject, "hello").raw);
  return { raw, env };
}

test("a hook error code with a line feed cannot forge a log line of run on stderr", async () => {
  const { raw, env } = await afterFirstRun("forged log line");
  const forged = "2026-01-01T00:00:00.000Z ERROR mail: forged";
  fx.receiver.respondWith({ status: 400, body: { ok: false, code: `bad\n${forged}\tx` } });
  const r = await cli(raw, ["mail", "run", "--once"], { env });
  expect(r.code).toBe(0);
  const lines = r.err.split("\n");
  expect(lines.some((l) => l.startsWith(forged))).toBe(false);
  expect(lines.find((l) => l.includes("ERROR mail: mail batch rejected by the gateway; skipping it"))).toContain(`code=bad\\x0a${forged}\\x09x`);
});

test("a hook error code with a line feed cannot forge a line of run's error message, and is cut at 100 characters", async () => {
  const { raw, env } = await afterFirstRun("forged error line");
  const forged = "webhooks mail run: forged";
  fx.receiver.respondWith({ status: 404, body: { ok: false, code: `bad\n${forged}${"y".repeat(5000)}` } });
  const r = await cli(raw, ["mail", "run", "--once"], { env });
  expect(r.code).toBe(1);
  const lines = r.err.split("\n");
  expect(lines.some((l) => l.startsWith(forged))).toBe(false);
  const error = lines.find((l) => l.startsWith("webhooks mail run: The hook at"));
  expect(error).toContain(`(HTTP 404 bad\\x0a${forged}${"y".repeat(100 - 4 - forged.length)}); check hooks.mail.hookUrl`);
});

test("a query credential in hooks.mail.hookUrl is refused by the config check, and one that got past it does not reach run's error message, as text or JSON", async () => {
  const { raw, env } = await afterFirstRun("credential in url");
  const url = new URL(fx.receiver.url);
  url.search = "?access_token=query-secret-0123456789";
  const refused = { ...raw, hooks: { ...(raw.hooks as object), mail: { ...(raw.hooks as { mail: object }).mail, hookUrl: url.toString() } } };
  expect(() => resolveConfig(refused, { configDir: fx.dir })).toThrow(
    /^hooks\.mail\.hookUrl must not carry credentials \(a query parameter such as \?token=\)/,
  );
  for (const json of [false, true]) {
    const r = await cli(raw, ["mail", "run", "--once", ...(json ? ["--json"] : [])], { env, hookUrl: url.toString() });
    expect(r.code).toBe(1);
    expect(r.err + r.out).toContain("does not accept mail (HTTP 404 not_found)");
    expect(r.err + r.out).toContain("access_token=[REDACTED]");
    expect(r.err + r.out).not.toContain("query-secret-0123456789");
  }
});

test("a damaged checkpoint: run --once exits 1 naming the file, as text and as JSON with its code", async () => {
  const store = createCheckpointStore({
    stateDir: path.join(fx.dir, "state"),
    mailbox: { host: "127.0.0.1", port: fx.imap.port, user: fx.imap.user, mailbox: "INBOX" },
  });
  fs.mkdirSync(path.dirname(store.file), { recursive: true });
  fs.writeFileSync(store.file, "");
  const env = { IMAP_PW: fx.imap.password };
  const r = await cli(mailConfig(), ["mail", "run", "--once"], { env });
  expect(r.code).toBe(1);
  expect(r.err).toContain(`webhooks mail run: mail checkpoint ${store.file} has an unknown format; move it away to start fresh.`);
  const j = await cli(mailConfig(), ["mail", "run", "--once", "--json"], { env });
  expect(j.code).toBe(1);
  expect(JSON.parse(j.out)).toMatchObject({ ok: false, code: "checkpoint_unreadable" });
});

test("run --once with a wrong password: a clear error and exit code 1", async () => {
  const r = await cli(mailConfig(), ["mail", "run", "--once"], { env: { IMAP_PW: "not-the-password" } });
  expect(r.code).toBe(1);
  expect(r.err).toContain(`webhooks mail run: The IMAP server 127.0.0.1:${fx.imap.port} rejected the login for user "${fx.imap.user}"`);
  expect(r.err).toContain("check the password in environment variable IMAP_PW");
  expect(r.err).not.toContain("not-the-password");
});

test("run without hooks.mail, or with a bad --since, explains what to do", async () => {
  const none = await cli({ hooks: { enabled: true, token: TOKEN } }, ["mail", "run", "--once"]);
  expect(none.code).toBe(1);
  expect(none.err).toContain(
    `webhooks mail run: hooks.mail is not configured in ${path.join(fx.dir, "gateway.config.json")}; run \`gateway webhooks mail setup\` first.`,
  );
  const since = await cli(mailConfig(), ["mail", "run", "--once", "--since", "yesterday"], { env: { IMAP_PW: fx.imap.password } });
  expect(since.code).toBe(1);
  expect(since.err).toContain('webhooks mail run: --since must be a date (YYYY-MM-DD) or a message UID (a positive integer) (got "yesterday").');
});

test("run --once with the gateway down exits 1 after --max-wait, keeping the batch; the next --once delivers it", async () => {
  const raw = mailConfig();
  const env = { IMAP_PW: fx.imap.password };
  expect((await cli(raw, ["mail", "run", "--once"], { env })).code).toBe(0);
  const m = plainMessage("cron while down", "x");
  await fx.imap.append(m.raw);
  await fx.receiver.down();
  const r = await cli(raw, ["mail", "run", "--once", "--max-wait", "0"], { env });
  expect(r.code).toBe(1);
  expect(r.err).toContain(
    `webhooks mail run: The hook at ${fx.receiver.url} did not accept the mail batch within 0 s (1 attempt(s), last: ECONNREFUSED); the batch is kept and sent again, with the same Idempotency-Key, by the next run.`,
  );
  const j = await cli(raw, ["mail", "run", "--once", "--max-wait", "0", "--json"], { env });
  expect(j.code).toBe(1);
  expect(JSON.parse(j.out)).toMatchObject({ ok: false, code: "hook_unreachable" });
  await fx.receiver.up();
  const ok = await cli(raw, ["mail", "run", "--once"], { env });
  expect(ok.code).toBe(0);
  expect(fx.deliveredIds()).toEqual([m.id]);
});

test("--max-wait: only with --once, whole seconds 0..86400", async () => {
  const env = { IMAP_PW: fx.imap.password };
  const bad = await cli(mailConfig(), ["mail", "run", "--once", "--max-wait", "1.5"], { env });
  expect(bad.code).toBe(1);
  expect(bad.err).toContain('webhooks mail run: --max-wait must be a whole number of seconds from 0 to 86400 (got "1.5").');
  const notOnce = await cli(mailConfig(), ["mail", "run", "--max-wait", "60"], { env });
  expect(notOnce.code).toBe(1);
  expect(notOnce.err).toContain("webhooks mail run: --max-wait only applies with --once (without it, run retries until the gateway is back).");
  expect(fx.receiver.posts).toEqual([]);
});

test("run keeps watching until stopped (SIGINT/SIGTERM), then exits 0 with a summary", async () => {
  const stop = new AbortController();
  const env = { IMAP_PW: fx.imap.password };
  const running = cli(mailConfig(), ["mail", "run"], { env, stop });
  await fx.receiver.waitFor(
    () => fs.existsSync(path.join(fx.dir, "state", "mail")) && fs.readdirSync(path.join(fx.dir, "state", "mail")).some((f) => f.startsWith("checkpoint-")),
    "the first checkpoint",
  );
  const m = plainMessage("while running", "x");
  await fx.imap.append(m.raw);
  await fx.receiver.waitFor(() => fx.receiver.accepted().length === 1, "the new message");
  await fx.receiver.waitFor(() => {
    const f = fs.readdirSync(path.join(fx.dir, "state", "mail")).find((x) => x.startsWith("checkpoint-"))!;
    return JSON.parse(fs.readFileSync(path.join(fx.dir, "state", "mail", f), "utf8")).pending === undefined;
  }, "the checkpoint to advance");
  stop.abort();
  const r = await running;
  expect(r.code).toBe(0);
  expect(r.out).toMatch(/^Stopped: 1 message\(s\) delivered in 1 post\(s\); the checkpoint is at UID \d+\.\n$/);
});
