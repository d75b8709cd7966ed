/**
 * Mail (SPEC §8) against the real `gateway` process (built dist) and a real IMAP
 * server (dovecot): `mail setup` writes a config `gateway start` accepts, `mail run`
 * turns new mail into one agent run, survives the gateway being down and its own
 * `kill -9`, and the gateway can run the watcher itself (hooks.mail.autoStart), posting
 * to its own configured port when no hook URL is set.
 */
import { until } from "../helpers/until";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import {
  GATEWAY_BIN,
  GATEWAY_NODE,
  makeGatewayDir,
  readJournal,
  runGatewayCli,
  startGateway,
  type GatewayProcess,
  type JournalEntry,
} from "../helpers/gateway-process";
import { freePort, startDovecot, type DovecotServer } from "../mail/helpers/dovecot";
import { htmlOnlyMessage, nonAsciiSubjectMessage, plainMessage } from "../mail/helpers/messages";
import { startHoldingProxy } from "../mail/helpers/holding-proxy";

let imap: DovecotServer;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  imap = await startDovecot();
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await imap?.cleanup();
});

interface Setup {
  dir: string;
  configPath: string;
  stateDir: string;
  port: number;
  env: Record<string, string>;
}

/** A config dir with a base config, then `gateway webhooks mail setup` run on it through the real CLI. */
async function setUp(extraFlags: string[] = []): Promise<Setup> {
  const dir = makeGatewayDir("gw-mail-");
  const port = await freePort();
  const configPath = path.join(dir, "gateway.config.json");
  fs.writeFileSync(configPath, JSON.stringify({ gateway: { port }, agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" } } } }, null, 2));
  const env = { IMAP_PW: imap.password };
  const flags = ["--host", "127.0.0.1", "--port", String(imap.port), "--tls", "none", "--user", imap.user, "--password-env", "IMAP_PW", "--no-input"];
  const r = await runGatewayCli(["webhooks", "mail", "setup", "--config", configPath, ...flags, ...extraFlags, "--json"], { cwd: dir, env });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ ok: true, configPath, written: true });
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  return { dir, configPath, stateDir: path.join(dir, ".gateway"), port, env };
}

async function gateway(s: Setup): Promise<GatewayProcess> {
  const gw = await startGateway({ configPath: s.configPath, port: s.port, env: s.env, cwd: s.dir });
  cleanups.push(() => gw.stop());
  return gw;
}

function mailCli(s: Setup, args: string[], env: Record<string, string> = s.env) {
  return runGatewayCli(["webhooks", "mail", "run", "--config", s.configPath, ...args], { cwd: s.dir, env });
}

/** `gateway webhooks mail run` as a long-running child; its stderr is collected. */
function startWatcherProcess(s: Setup): { child: ChildProcess; stderr(): string; stdout(): string; exit: Promise<number | null> } {
  const child = spawn(GATEWAY_NODE, [GATEWAY_BIN, "webhooks", "mail", "run", "--config", s.configPath], {
    cwd: s.dir,
    env: { ...process.env, ...s.env, GATEWAY_CONFIG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  let out = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exit;
    }
  });
  return { child, stderr: () => err, stdout: () => out, exit };
}

const mailTurns = (stateDir: string): JournalEntry[] =>
  readJournal(stateDir).filter((e) => e.type === "agent_turn" && String(e.sessionKey).startsWith("hook:mail:"));

test("setup output is accepted by `gateway start`; plain passwords are refused; rerun updates", async () => {
  const s = await setUp();
  const refused = await runGatewayCli(["webhooks", "mail", "setup", "--config", s.configPath, "--password", "hunter2"], { cwd: s.dir });
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("Refusing to store a plain-text IMAP password");
  expect(refused.stderr).not.toContain("hunter2");

  const before = JSON.parse(fs.readFileSync(s.configPath, "utf8"));
  const rerun = await runGatewayCli(["webhooks", "mail", "setup", "--config", s.configPath, "--max-bytes", "2048", "--no-input", "--json"], { cwd: s.dir });
  expect(rerun.code).toBe(0);
  expect(JSON.parse(rerun.stdout)).toMatchObject({ mail: "updated", changes: ["hooks.mail updated"], tokenCreated: false });
  const after = JSON.parse(fs.readFileSync(s.configPath, "utf8"));
  expect(after.hooks.presets).toEqual(["mail"]);
  expect(after.hooks.token).toBe(before.hooks.token);
  expect(after.hooks.mail).toEqual({ ...before.hooks.mail, maxBytes: 2048 });
  expect(after.gateway).toEqual(before.gateway);
  expect(after.agents).toEqual(before.agents);

  const gw = await gateway(s);
  expect(gw.stdout()).toContain(`route: ${gw.baseUrl}/hooks → inbound-webhooks`);
});

test("three new messages → one post, one agent run listing all three, readable text; --once exits 0", async () => {
  const s = await setUp();
  const gw = await gateway(s);
  const first = await mailCli(s, ["--once"]);
  expect(first.code).toBe(0);
  expect(first.stdout).toMatch(/^Done: 0 message\(s\) delivered in 0 post\(s\)/);

  const plain = plainMessage("Lunch on Friday?", "Are you free for lunch on Friday?");
  const html = htmlOnlyMessage("Your parcel", "<html><body><p>Your parcel <b>XR-42</b> arrives <i>tomorrow</i>.</p></body></html>");
  const utf8 = nonAsciiSubjectMessage("Réunion à 15h — 会議", "Bis später!");
  for (const m of [plain, html, utf8]) await imap.append(m.raw);

  const r = await mailCli(s, ["--once"]);
  expect({ code: r.code, stderr: r.stderr }).toMatchObject({ code: 0 });
  expect(r.stdout).toMatch(/^Done: 3 message\(s\) delivered in 1 post\(s\); the checkpoint is at UID \d+\.\n$/);
  const turn = await gw.waitForJournal((e) => e.type === "agent_turn" && String(e.sessionKey).startsWith("hook:mail:"));
  expect(turn.sessionKey).toBe(`hook:mail:${plain.id}`);
  expect(turn.status).toBe("ok");
  const reply = String(turn.reply);
  expect(reply).toContain("New mail: 3 messages.");
  expect(reply).toContain("Subject: Lunch on Friday?");
  expect(reply).toContain("Subject: Your parcel");
  expect(reply).toContain("Snippet: Your parcel XR-42 arrives tomorrow.");
  expect(reply).toContain("Subject: Réunion à 15h — 会議");
  expect(reply).not.toMatch(/<b>|<p>|=\?UTF-8\?/);
  expect(mailTurns(s.stateDir)).toHaveLength(1);

  // Simulated: a checkpoint rewound by hand lags behind the gateway, as after a kill between the
  // gateway's 2xx and the checkpoint write (the real kill is the "kill -9 … before the checkpoint
  // write" test below): the same batch is re-sent with the same key, the gateway replays, no second run.
  const cpDir = fs
    .readdirSync(path.join(s.stateDir), { recursive: true })
    .map(String)
    .find((f) => /mail[\\/]checkpoint-/.test(f))!;
  const cpFile = path.join(s.stateDir, cpDir);
  const cp = JSON.parse(fs.readFileSync(cpFile, "utf8"));
  fs.writeFileSync(cpFile, JSON.stringify({ ...cp, lastUid: cp.lastUid - 3 }));
  const replay = await mailCli(s, ["--once"]);
  expect({ code: replay.code, stderr: replay.stderr }).toMatchObject({ code: 0 });
  expect(replay.stdout).toMatch(/^Done: 3 message\(s\) delivered in 1 post\(s\)/);
  expect(replay.stderr).toContain("mail batch was already accepted by the gateway (replayed)");
  expect(mailTurns(s.stateDir)).toHaveLength(1);
});

test("gateway down → run keeps retrying; kill -9 (before any 2xx) and restart of run; each message delivered exactly once", async () => {
  const s = await setUp();
  const w1 = startWatcherProcess(s);
  await until(() => w1.stderr().includes("first start for this mailbox"), "the watcher's first checkpoint", { timeoutMs: 20_000, detail: w1.stderr });

  const a = plainMessage("down 1", "first while the gateway is down");
  const b = plainMessage("down 2", "second while the gateway is down");
  await imap.append(a.raw);
  await imap.append(b.raw);
  await until(() => (w1.stderr().match(/gateway unreachable; retrying mail batch/g) ?? []).length >= 2, "retries while the gateway is down", {
    timeoutMs: 20_000,
    detail: w1.stderr,
  });

  w1.child.kill("SIGKILL");
  await w1.exit;
  const w2 = startWatcherProcess(s);
  await until(() => w2.stderr().includes("re-sending the batch that was in flight"), "the restarted watcher to pick up the batch", {
    timeoutMs: 20_000,
    detail: w2.stderr,
  });

  const gw = await gateway(s);
  await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${a.id}`, 30_000);
  // The watcher counts a post once its answer is in and the checkpoint moved; the run's turn can come first.
  const acknowledged = () => {
    const cp = readCheckpoint(s.stateDir);
    return cp.pending === undefined ? cp.lastUid : undefined;
  };
  await until(() => acknowledged() !== undefined, "the watcher to acknowledge the re-sent batch", { timeoutMs: 20_000, detail: w2.stderr });
  const afterFirst = acknowledged()!;
  const c = plainMessage("after", "third, after the gateway came back");
  await imap.append(c.raw);
  await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${c.id}`, 30_000);
  await until(() => acknowledged() === afterFirst + 1, "the watcher to acknowledge the third message", { timeoutMs: 20_000, detail: w2.stderr });

  w2.child.kill("SIGTERM");
  expect(await w2.exit).toBe(0);
  expect(w2.stdout()).toMatch(/^Stopped: 3 message\(s\) delivered in 2 post\(s\)/);
  const turns = mailTurns(s.stateDir);
  expect(turns.map((t) => t.sessionKey)).toEqual([`hook:mail:${a.id}`, `hook:mail:${c.id}`]);
  expect(String(turns[0]!.reply)).toContain("New mail: 2 messages.");
  expect(String(turns[1]!.reply)).toContain("New mail: 1 message.");
});

/** The watcher's checkpoint file under the gateway state dir. */
function readCheckpoint(stateDir: string): { lastUid: number; pending?: { uids: number[]; idempotencyKey: string } } {
  const rel = checkpointFile(stateDir)!;
  return JSON.parse(fs.readFileSync(path.join(stateDir, rel), "utf8"));
}

function checkpointFile(stateDir: string): string | undefined {
  return fs
    .readdirSync(stateDir, { recursive: true })
    .map(String)
    .find((f) => /mail[\\/]checkpoint-[^/\\]*\.json$/.test(f));
}

test("kill -9 of `run` after the gateway accepted a batch but before the checkpoint write; the restart neither loses nor repeats a message", async () => {
  // The watcher posts through a proxy that can keep the gateway's 2xx from it.
  const proxy = await startHoldingProxy("/hooks/mail");
  cleanups.push(() => proxy.close());
  const s = await setUp(["--hook-url", proxy.url]);
  proxy.target = `http://127.0.0.1:${s.port}`;
  const gw = await gateway(s);
  const w1 = startWatcherProcess(s);
  await until(() => w1.stderr().includes("first start for this mailbox"), "the watcher's first checkpoint", { timeoutMs: 20_000, detail: w1.stderr });
  // The watcher logs the first start before it saves the checkpoint.
  await until(() => checkpointFile(s.stateDir) !== undefined, "the first checkpoint file", { timeoutMs: 20_000 });
  const start = readCheckpoint(s.stateDir).lastUid;

  // One batch delivered normally: 2xx seen, checkpoint advanced.
  const a = plainMessage("kill test 1", "delivered before the kill");
  await imap.append(a.raw);
  await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${a.id}`, 30_000);
  await until(
    () => readCheckpoint(s.stateDir).lastUid === start + 1 && readCheckpoint(s.stateDir).pending === undefined,
    "the checkpoint past the first batch",
    { timeoutMs: 20_000 },
  );

  // The second batch: the gateway accepts it and runs it, the watcher never gets the answer.
  const { held } = proxy.holdNext();
  const b = plainMessage("kill test 2", "accepted, then the watcher is killed");
  const c = plainMessage("kill test 3", "same batch as 2");
  await imap.append(b.raw);
  await imap.append(c.raw);
  expect(await held).toBe(202);
  await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${b.id}`, 30_000);
  w1.child.kill("SIGKILL");
  await w1.exit;
  const atKill = readCheckpoint(s.stateDir);
  expect(atKill.lastUid).toBe(start + 1);
  expect(atKill.pending?.uids).toEqual([start + 2, start + 3]);

  // The restart re-sends that batch with the same key: the gateway replays, no second run.
  const w2 = startWatcherProcess(s);
  await until(() => w2.stderr().includes("mail batch was already accepted by the gateway (replayed)"), "the replayed batch", {
    timeoutMs: 20_000,
    detail: w2.stderr,
  });
  await until(
    () => readCheckpoint(s.stateDir).lastUid === start + 3 && readCheckpoint(s.stateDir).pending === undefined,
    "the checkpoint past the second batch",
    { timeoutMs: 20_000 },
  );
  const d = plainMessage("kill test 4", "after the restart");
  await imap.append(d.raw);
  await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${d.id}`, 30_000);
  w2.child.kill("SIGTERM");
  expect(await w2.exit).toBe(0);

  const turns = mailTurns(s.stateDir);
  expect(turns.map((t) => t.sessionKey)).toEqual([`hook:mail:${a.id}`, `hook:mail:${b.id}`, `hook:mail:${d.id}`]);
  const replies = turns.map((t) => String(t.reply)).join("\n");
  for (const subject of ["kill test 1", "kill test 2", "kill test 3", "kill test 4"]) {
    expect(replies.split(`Subject: ${subject}`)).toHaveLength(2); // exactly one agent run lists it
  }
});

test("a wrong IMAP password makes --once fail with a clear error and exit code 1", async () => {
  const s = await setUp();
  const r = await mailCli(s, ["--once"], { IMAP_PW: "definitely-wrong" });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain(`webhooks mail run: The IMAP server 127.0.0.1:${imap.port} rejected the login for user "${imap.user}"`);
  expect(r.stderr).not.toContain("definitely-wrong");
});

test("autoStart: the gateway runs the watcher itself and delivers new mail", async () => {
  const s = await setUp(["--auto-start"]);
  const gw = await gateway(s);
  await until(
    () => gw.stderr().includes("first start for this mailbox") || gw.stdout().includes("first start for this mailbox"),
    "the service's first checkpoint",
    { timeoutMs: 20_000, detail: gw.stderr },
  );
  const m = plainMessage("auto", "delivered by the gateway's own watcher");
  await imap.append(m.raw);
  await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${m.id}`, 30_000);
  // One watcher per mailbox: the CLI refuses to run a second one beside the service.
  const second = await mailCli(s, ["--once"]);
  expect(second.code).toBe(1);
  expect(second.stderr).toContain("Another mail watcher (pid");
  expect(await gw.stop()).toBe(0);
});

test("autoStart without hooks.mail.hookUrl posts to the gateway's own, non-default port (regression: the service posted to 18789)", async () => {
  const dir = makeGatewayDir("gw-mail-port-");
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  const port = await freePort();
  expect(port).not.toBe(18789);
  const configPath = path.join(dir, "gateway.config.json");
  const imapSection = { host: "127.0.0.1", port: imap.port, tls: "none", user: imap.user, password: { env: "IMAP_PW" } };
  fs.writeFileSync(
    configPath,
    JSON.stringify({
      gateway: { port },
      agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" } } },
      hooks: { enabled: true, token: "mail-port-token-0123456789abcdef", presets: ["mail"], mail: { imap: imapSection, autoStart: true } },
    }),
  );
  const gw = await gateway({ dir, configPath, stateDir: path.join(dir, ".gateway"), port, env: { IMAP_PW: imap.password } });
  expect(gw.port).toBe(port);
  await until(() => (gw.stderr() + gw.stdout()).includes("first start for this mailbox"), "the service's first checkpoint", {
    timeoutMs: 20_000,
    detail: gw.stderr,
  });
  const m = plainMessage("own port", "posted to the configured gateway.port");
  await imap.append(m.raw);
  const turn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === `hook:mail:${m.id}`, 30_000);
  expect(String(turn.reply)).toContain("Subject: own port");
  expect(await gw.stop()).toBe(0);
});
