/**
 * `mail setup` on real files: flags, prompts, refusal of plain-text passwords, updates
 * on rerun, and that the rest of the config file is left as it was.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { runMailSetup, type MailSetupFlags, type MailSetupContext } from "../../../src/mail/setup/mail-setup";
import { formatSetupSummary, setupJson } from "../../../src/mail/setup/setup-report";
import { isMailError } from "../../../src/mail/mail-error";
import { resolveConfig } from "../../../src/config/resolve";

let dir: string;
let file: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-mail-setup-"));
  file = path.join(dir, "gateway.config.json");
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const GMAIL: MailSetupFlags = { host: "imap.gmail.com", user: "me@gmail.com", passwordEnv: "GMAIL_APP_PASSWORD" };
const ctx = (over: Partial<MailSetupContext> = {}): MailSetupContext => ({
  configPath: file,
  cwd: dir,
  env: { GMAIL_APP_PASSWORD: "set" },
  interactive: false,
  generateToken: () => "generated-token-0123456789abcdefghijklmnop",
  ...over,
});
const readFile = () => JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, any>;
const failure = async (p: Promise<unknown>) =>
  p.then(
    () => new Error("expected a failure"),
    (e: unknown) => e as Error,
  );

test("flags on an existing config: hooks enabled, mail preset added, token created, other keys untouched and in order", async () => {
  const original = {
    gateway: { port: 19000, bind: "127.0.0.1" },
    agents: { runner: { kind: "echo" } },
    hooks: { path: "/in", presets: [], mappings: [{ id: "gh", match: { path: "github" }, messageTemplate: "{{ action }}" }], enabled: false },
    session: { main: { lastRoute: { channel: "bot_chat", to: "me" } } },
  };
  fs.writeFileSync(file, JSON.stringify(original, null, 2), { mode: 0o640 });
  const r = await runMailSetup(GMAIL, ctx());
  const written = readFile();
  expect(Object.keys(written)).toEqual(["gateway", "agents", "hooks", "session"]);
  expect(Object.keys(written.hooks)).toEqual(["path", "presets", "mappings", "enabled", "token", "mail"]);
  expect(written.gateway).toEqual(original.gateway);
  expect(written.agents).toEqual(original.agents);
  expect(written.session).toEqual(original.session);
  expect(written.hooks.mappings).toEqual(original.hooks.mappings);
  expect(written.hooks).toMatchObject({ path: "/in", presets: ["mail"], enabled: true, token: "generated-token-0123456789abcdefghijklmnop" });
  expect(written.hooks.mail).toEqual({
    imap: { host: "imap.gmail.com", port: 993, tls: "tls", user: "me@gmail.com", password: { env: "GMAIL_APP_PASSWORD" }, mailbox: "INBOX" },
    hookUrl: "http://127.0.0.1:19000/in/mail",
    includeBody: false,
    maxBytes: 8192,
  });
  expect(fs.readFileSync(file, "utf8")).toBe(JSON.stringify(written, null, 2) + "\n");
  expect(fs.statSync(file).mode & 0o777).toBe(0o640);
  expect(r).toMatchObject({ created: false, written: true, mail: "created", tokenCreated: true, warnings: [] });
  expect(r.changes).toEqual([
    "hooks.enabled set to true",
    '"mail" added to hooks.presets',
    "hooks.token created (random, stored in the config file)",
    "hooks.mail written",
  ]);
  expect(r.next).toEqual([`gateway start --config ${file}`, `gateway webhooks mail run --config ${file}`]);
  // What setup wrote is what the plugin accepts.
  expect(resolveConfig(written, { configDir: dir }).mail).toMatchObject({ imap: { host: "imap.gmail.com", port: 993 }, maxMessages: 10, pollSeconds: 60 });
});

test("rerunning updates hooks.mail in place instead of duplicating anything", async () => {
  await runMailSetup(GMAIL, ctx());
  const first = readFile();
  const again = await runMailSetup(GMAIL, ctx({ generateToken: () => "must-not-be-used-0123456789abcdef" }));
  expect(again).toMatchObject({ written: false, mail: "unchanged", changes: [], tokenCreated: false });
  expect(readFile()).toEqual(first);

  // Hand-edited keys the setup does not own survive an update.
  const edited = readFile();
  edited.hooks.mail.channel = "bot_chat";
  edited.hooks.mail.pollSeconds = 30;
  fs.writeFileSync(file, JSON.stringify(edited, null, 2));
  const updated = await runMailSetup({ maxBytes: "2048", includeBody: true, mailbox: "Work" }, ctx());
  expect(updated).toMatchObject({ mail: "updated", changes: ["hooks.mail updated"] });
  const after = readFile();
  expect(after.hooks.presets).toEqual(["mail"]);
  expect(after.hooks.token).toBe(first.hooks.token);
  expect(after.hooks.mail).toEqual({
    imap: { host: "imap.gmail.com", port: 993, tls: "tls", user: "me@gmail.com", password: { env: "GMAIL_APP_PASSWORD" }, mailbox: "Work" },
    hookUrl: "http://127.0.0.1:18789/hooks/mail",
    includeBody: true,
    maxBytes: 2048,
    channel: "bot_chat",
    pollSeconds: 30,
  });
  expect(Object.keys(after.hooks.mail)).toEqual(["imap", "hookUrl", "includeBody", "maxBytes", "channel", "pollSeconds"]);
});

test("an existing token (plain or a reference) is kept", async () => {
  fs.writeFileSync(file, JSON.stringify({ hooks: { enabled: true, token: { env: "HOOK_TOKEN" }, presets: ["mail", "github"] } }));
  const r = await runMailSetup(GMAIL, ctx());
  expect(r.tokenCreated).toBe(false);
  expect(readFile().hooks).toMatchObject({ token: { env: "HOOK_TOKEN" }, presets: ["mail", "github"] });
});

test("a plain-text password is refused with a clear message and nothing is written", async () => {
  const err = await failure(runMailSetup({ ...GMAIL, passwordEnv: undefined, password: "hunter2" }, ctx()));
  expect(isMailError(err, "plain_password_refused")).toBe(true);
  expect(err.message).toBe(
    "Refusing to store a plain-text IMAP password: setup only writes a reference to it. Put the password in an environment variable and pass --password-env NAME, or in a file only you can read (chmod 600) and pass --password-file PATH.",
  );
  expect(err.message).not.toContain("hunter2");
  expect(fs.existsSync(file)).toBe(false);
});

test("missing required values without a terminal are listed together", async () => {
  const err = await failure(runMailSetup({ host: "imap.example.com" }, ctx()));
  expect(isMailError(err, "invalid_option")).toBe(true);
  expect(err.message).toBe(
    "Missing --user, --password-env NAME or --password-file PATH: pass them as flags (no terminal to ask on), e.g. gateway webhooks mail setup --host imap.example.com --user me@example.com --password-env MAIL_PASSWORD.",
  );
});

test.each([
  [{ port: "99999" }, '--port must be an integer between 1 and 65535 (got "99999").'],
  [{ tls: "ssl" }, '--tls must be one of tls, starttls, none (got "ssl").'],
  [{ maxBytes: "0" }, '--max-bytes must be an integer between 1 and 10485760 (got "0").'],
  [{ hookUrl: "ftp://x/hooks/mail" }, '--hook-url must be an http:// or https:// URL (got "ftp://x/hooks/mail").'],
  [
    { hookUrl: "http://127.0.0.1:18789/hooks/mail?token=s3cret" },
    '--hook-url must not carry credentials (the watcher sends the hook token in a header) (got "…").',
  ],
  // Regression: only "token=" was looked for, so ?key= and ?access_token= passed.
  [
    { hookUrl: "http://127.0.0.1:18789/hooks/mail?key=s3cret" },
    '--hook-url must not carry credentials (the watcher sends the hook token in a header) (got "…").',
  ],
  [
    { hookUrl: "http://127.0.0.1:18789/hooks/mail?access_token=s3cret" },
    '--hook-url must not carry credentials (the watcher sends the hook token in a header) (got "…").',
  ],
  [{ passwordEnv: "1BAD" }, '--password-env must be an environment variable name (letters, digits and _, not starting with a digit) (got "1BAD").'],
  [{ passwordFile: "/p" }, "Use only one of --password-env and --password-file."],
] as Array<[MailSetupFlags, string]>)("invalid flag %j is refused", async (flags, message) => {
  const err = await failure(runMailSetup({ ...GMAIL, ...flags }, ctx()));
  expect(isMailError(err)).toBe(true);
  expect(err.message).toBe(message);
});

test("a world-readable config that gets a newly created plain-text token is tightened to 0600, and the output says so", async () => {
  fs.writeFileSync(file, JSON.stringify({ gateway: { port: 19000 } }, null, 2));
  fs.chmodSync(file, 0o644);
  const r = await runMailSetup(GMAIL, ctx());
  expect(r.tokenCreated).toBe(true);
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(r.changes).toContain(`permissions of ${file} tightened from 0644 to 0600 (it now holds the hook token)`);
  expect(formatSetupSummary(r)).toContain(`  - permissions of ${file} tightened from 0644 to 0600 (it now holds the hook token)`);
  expect(r.warnings).toEqual([]);
});

test("a world-readable config that already held a plain-text token keeps its mode, with a chmod warning", async () => {
  fs.writeFileSync(file, JSON.stringify({ hooks: { token: "existing-token-0123456789abcdefghijkl" } }, null, 2));
  fs.chmodSync(file, 0o604);
  const r = await runMailSetup(GMAIL, ctx());
  expect(r.tokenCreated).toBe(false);
  expect(fs.statSync(file).mode & 0o777).toBe(0o604);
  expect(r.changes.some((c) => c.startsWith("permissions of"))).toBe(false);
  expect(r.warnings).toEqual([`${file} holds hooks.token in plain text and can be read by other users; run chmod 600 ${file}.`]);
});

test("port follows the TLS mode; password file stored as an absolute path; warnings for what needs attention", async () => {
  fs.writeFileSync(path.join(dir, "imap-pass"), "secret\n", { mode: 0o644 });
  const r = await runMailSetup({ host: "mail.example.org", user: "u", passwordFile: "imap-pass", tls: "none" }, ctx({ env: {} }));
  expect(readFile().hooks.mail.imap).toMatchObject({ port: 143, tls: "none", password: { file: path.join(dir, "imap-pass") } });
  expect(r.warnings).toEqual([
    `The password file ${path.join(dir, "imap-pass")} can be read by other users; run chmod 600 ${path.join(dir, "imap-pass")}.`,
    'tls "none" sends the IMAP password unencrypted to mail.example.org; use "tls" (port 993) or "starttls" (port 143).',
  ]);
  const r2 = await runMailSetup({ ...GMAIL, passwordEnv: "NOT_SET_HERE", tls: "tls" }, ctx({ env: {} }));
  expect(r2.warnings).toEqual(["Environment variable NOT_SET_HERE is not set in this shell; set it (export NOT_SET_HERE=…) wherever the watcher runs."]);
  expect(readFile().hooks.mail.imap.port).toBe(993);
});

test("no config file in use (demo default): ./gateway.config.json is created with mode 0600", async () => {
  const r = await runMailSetup(GMAIL, ctx({ configPath: undefined }));
  expect(r).toMatchObject({ configPath: file, created: true, written: true });
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(r.warnings).toContain(
    `No config file was in use (the gateway's demo default), so setup created ${file}; the gateway reads it when started from ${dir} or with --config.`,
  );
  expect(Object.keys(readFile())).toEqual(["hooks"]);
});

test("a JSON5 config is read, rewritten as JSON, and the original kept as .bak", async () => {
  const json5 = "// my gateway\n{\n  gateway: { port: 18790, },\n  hooks: { enabled: true, token: 'abcdefghijklmnopqrstuvwxyz', },\n}\n";
  fs.writeFileSync(file, json5);
  const r = await runMailSetup(GMAIL, ctx());
  expect(fs.readFileSync(`${file}.bak`, "utf8")).toBe(json5);
  expect(readFile()).toMatchObject({ gateway: { port: 18790 }, hooks: { enabled: true, token: "abcdefghijklmnopqrstuvwxyz", presets: ["mail"] } });
  expect(r.warnings).toContain(
    `The config file used JSON5 syntax (comments, trailing commas…) and was rewritten as plain JSON; the original is kept as ${file}.bak.`,
  );
});

test("a config the gateway would refuse is not written", async () => {
  fs.writeFileSync(file, JSON.stringify({ hooks: { maxBodyBytes: -5 } }));
  const err = await failure(runMailSetup(GMAIL, ctx()));
  expect(isMailError(err, "config_file")).toBe(true);
  expect(err.message).toMatch(/^The updated config would be refused by the gateway, so nothing was written: .*hooks\.maxBodyBytes/);
  expect(readFile()).toEqual({ hooks: { maxBodyBytes: -5 } });
});

test("interactive: prompts for what flags did not give, re-asks on bad answers, refuses a typed password", async () => {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (d: Buffer) => (shown += d.toString()));
  input.end(["imap.fastmail.com", "", "", "me@fastmail.com", "hunter2", "env:FASTMAIL_PASSWORD", "", "", "maybe", "yes", "abc", "4096", "yes", ""].join("\n"));
  const r = await runMailSetup({}, ctx({ interactive: true, input, promptOutput: output, env: { FASTMAIL_PASSWORD: "x" } }));
  expect(readFile().hooks.mail).toEqual({
    imap: { host: "imap.fastmail.com", port: 993, tls: "tls", user: "me@fastmail.com", password: { env: "FASTMAIL_PASSWORD" }, mailbox: "INBOX" },
    hookUrl: "http://127.0.0.1:18789/hooks/mail",
    includeBody: true,
    maxBytes: 4096,
    autoStart: true,
  });
  expect(r.next).toEqual([`gateway start --config ${file}`]);
  expect(shown).toContain("IMAP server host (e.g. imap.gmail.com): ");
  expect(shown).toContain("TLS mode: tls (port 993), starttls (port 143) or none [tls]: ");
  expect(shown).toContain("IMAP port [993]: ");
  expect(shown).toContain("Refusing to store a plain-text IMAP password");
  expect(shown).toContain('--include-body must be yes or no (got "maybe").');
  expect(shown).toContain('--max-bytes must be an integer between 1 and 10485760 (got "abc").');
  expect(shown).not.toContain("hunter2");
});

test("summary and --json output name what was done and never show the token", async () => {
  const r = await runMailSetup(GMAIL, ctx());
  const text = formatSetupSummary(r);
  expect(text).toContain(`Mail watcher configured in ${file} (new file).`);
  expect(text).toContain("  IMAP        me@gmail.com @ imap.gmail.com:993 (tls), mailbox INBOX");
  expect(text).toContain("  Password    read from environment variable GMAIL_APP_PASSWORD (never stored in the config)");
  expect(text).toContain("  export GMAIL_APP_PASSWORD=<your IMAP or app password>");
  expect(text).toContain(`  gateway webhooks mail run --config ${file}`);
  const json = setupJson(r);
  expect(json).toMatchObject({ ok: true, configPath: file, created: true, mail: "created", tokenCreated: true, next: r.next });
  const all = text + JSON.stringify(json);
  expect(all).not.toContain("generated-token-0123456789abcdefghijklmnop");
});
