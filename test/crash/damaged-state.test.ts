/**
 * Damaged state at start, on the real gateway process (SPEC §7 "Damaged state
 * at start"): each damage either fails the start with one line naming the file
 * and what to do, or is skipped with a warning naming it; and a start that fails
 * has no side effects on accepted runs. Requires the built dist.
 */
import { wrappedContent } from "../helpers/wrapped";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { openSqlite } from "../../src/store/sqlite-driver";
import { createSessionStore, sessionFileName } from "../../src/gateway/sessions/session-store";
import { makeGatewayDir, runGatewayCli, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { CRASH_TOKEN, getRun, holdReadSnapshot, pluginDatabaseFile, postJson, queryPluginDb, walFramesNow, walIndexNow } from "./crash-support";
import { until } from "../helpers/until";

jest.setTimeout(180_000);

const config = (extra: Record<string, unknown> = {}) => ({
  hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false } },
  agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" } } },
  ...extra,
});

/** Queued (or running) runs written straight into the plugin database, as an earlier gateway left them. */
function seedRuns(stateDir: string, runs: Array<{ id: string; status?: "queued" | "running"; name: string; action?: string }>): void {
  const db = openSqlite(pluginDatabaseFile(stateDir));
  try {
    const insert = db.prepare(
      "INSERT INTO runs (id, seq, status, action, source, created_at, started_at) VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM runs), ?, ?, ?, ?, ?)",
    );
    for (const r of runs) {
      const action = {
        kind: "agent",
        message: `seeded ${r.name}`,
        name: r.name,
        sessionKey: `hook:${r.id}`,
        wakeMode: "next-heartbeat",
        deliver: false,
        channel: "last",
        timeoutSeconds: 60,
      };
      const source = { hook: "agent", requestId: `seed-${r.id}`, allowUnsafeExternalContent: false };
      const status = r.status ?? "queued";
      insert.run(
        r.id,
        status,
        r.action ?? JSON.stringify(action),
        JSON.stringify(source),
        "2030-01-01T00:00:00.000Z",
        status === "running" ? "2030-01-01T00:00:01.000Z" : null,
      );
    }
  } finally {
    db.close();
  }
}

const statusesOf = (stateDir: string) =>
  Object.fromEntries(
    queryPluginDb<{ id: string; status: string; started_at: string | null }>(stateDir, "SELECT id, status, started_at FROM runs ORDER BY seq").map((r) => [
      r.id,
      `${r.status}${r.started_at ? "+started" : ""}`,
    ]),
  );

/** The `gateway: …` lines a failed start printed (its one-line reason). */
const reasonLines = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("gateway: "));

/** The main session's snapshot file (it exists once its log was first compacted; before, the session is its log alone). */
function mainSnapshot(stateDir: string): string {
  return path.join(stateDir, "sessions", sessionFileName("main"));
}

describe("damaged state at start (real gateway)", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  let configPath: string;
  const stateDirOf = () => path.join(dir, ".gateway");
  const start = async (extra: Record<string, unknown> = {}) => (gw = await startGateway({ dir, config: config(extra), startTimeoutMs: 60_000 }));
  /** A start expected to fail: runs `gateway start` to its exit. */
  const failedStart = (args: string[] = []) => runGatewayCli(["start", "--config", configPath, "--port", "0", ...args], { cwd: dir });

  beforeEach(async () => {
    dir = makeGatewayDir("gw-damaged-");
    configPath = path.join(dir, "gateway.config.json");
    // A first start creates the state (database, main session); then it stops cleanly.
    await start();
    expect(await gw!.stop()).toBe(0);
    gw = undefined;
  });
  /** Reader children still alive when a test fails (they would keep jest from exiting). */
  const readers: Array<{ kill9(): Promise<void> }> = [];
  afterEach(async () => {
    for (const r of readers.splice(0)) await r.kill9();
    await gw?.kill9();
    gw = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("3 failed starts burn no queued runs: 10 queued runs survive a port in use, another plugin failing and a damaged main session, and all run on the 4th start (regression: 8 of 10 were burned)", async () => {
    const stateDir = stateDirOf();
    const queued = Array.from({ length: 10 }, (_, i) => ({ id: `q${i}`, name: `Q${i}` }));
    seedRuns(stateDir, [{ id: "crashed", status: "running", name: "Crashed" }, ...queued]);
    const before = statusesOf(stateDir);
    const journalBefore = fs.readFileSync(path.join(stateDir, "journal.jsonl"), "utf8");
    const untouched = () => {
      expect(statusesOf(stateDir)).toEqual(before);
      const added = fs.readFileSync(path.join(stateDir, "journal.jsonl"), "utf8").slice(journalBefore.length);
      expect(added).not.toMatch(/"type":"(system_event|agent_turn|heartbeat)"/);
    };

    // 1. The port is taken: the start fails before any plugin loads.
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const port = (blocker.address() as net.AddressInfo).port;
    const portInUse = await runGatewayCli(["start", "--config", configPath, "--port", String(port)], { cwd: dir });
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    expect(portInUse.code).toBe(1);
    expect(reasonLines(portInUse.stderr)).toEqual([
      `gateway: port ${port} on 127.0.0.1 is already in use (another gateway or OpenClaw?); start on another port with \`npm start -- --port N\` (or \`gateway start --port N\`), or set gateway.port in ${configPath}`,
    ]);
    untouched();

    // 2. Another plugin's service fails to get ready (after the hooks service started).
    const other = path.join(dir, "failing-plugin");
    fs.mkdirSync(other);
    fs.writeFileSync(
      path.join(other, "plugin.json"),
      JSON.stringify({ id: "failing-plugin", name: "Failing", version: "1.0.0", main: "index.js", hostApi: "^2.0.0" }),
    );
    fs.writeFileSync(
      path.join(other, "index.js"),
      'exports.activate = (api) => api.registerService({ id: "failing.svc", start() {}, ready() { throw new Error("licence server unreachable"); }, stop() {} });\n',
    );
    fs.writeFileSync(configPath, JSON.stringify(config({ plugins: { paths: [other] } })));
    const otherFails = await failedStart();
    expect(otherFails.code).toBe(1);
    expect(reasonLines(otherFails.stderr)).toEqual(["gateway: service failing.svc of plugin failing-plugin failed to get ready: licence server unreachable"]);
    untouched();
    fs.writeFileSync(configPath, JSON.stringify(config()));

    // 3. The main session's snapshot is damaged: the start fails before any plugin runs.
    const snapshot = mainSnapshot(stateDir);
    const good = fs.existsSync(snapshot) ? fs.readFileSync(snapshot) : undefined;
    fs.writeFileSync(snapshot, '{"key":"main","pending":[{"id":"e1","text":"unterminat');
    const damaged = await failedStart();
    expect(damaged.code).toBe(1);
    expect(reasonLines(damaged.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^gateway: the main session file ${snapshot.replace(/[.]/g, "\\.")} is damaged: not valid JSON \\(.+\\)\\. Restore it from a backup, or move it aside to start with an empty main session \\(its pending events and history are then lost\\)\\.$`,
        ),
      ),
    ]);
    untouched();
    if (good) fs.writeFileSync(snapshot, good);
    else fs.rmSync(snapshot);

    // 4. A good start: the run found running is reported interrupted once, all 10 queued runs run.
    await start();
    await until(() => queued.every((q) => statusesOf(stateDir)[q.id] === "succeeded+started"), "the 10 queued runs", { timeoutMs: 60_000 });
    expect(statusesOf(stateDir).crashed).toBe("interrupted+started");
    // A run's summary reaches the journal after its status is stored: wait for the last of them, then count.
    const summariesNow = () =>
      gw!
        .journal()
        .filter((e) => e.type === "system_event")
        .map((e) => wrappedContent(String(e.text)));
    await until(() => queued.every((q) => summariesNow().some((t) => t.startsWith(`Hook ${q.name}: `))), "the 10 run summaries in the journal", {
      timeoutMs: 30_000,
    });
    const summaries = summariesNow();
    expect(summaries.filter((t) => t.startsWith("Hook Crashed (interrupted): "))).toHaveLength(1);
    for (const q of queued) expect(summaries.filter((t) => t.startsWith(`Hook ${q.name}: echo: seeded ${q.name}`))).toHaveLength(1);
  });

  it("a malformed run row is named (database and run) and skipped; the gateway starts and the other runs run (regression: it blocked the whole gateway naming neither)", async () => {
    const stateDir = stateDirOf();
    seedRuns(stateDir, [
      { id: "ok-1", name: "One" },
      { id: "broken", name: "Broken", action: '{"kind":"agent","message":"cut off' },
      { id: "ok-2", name: "Two" },
    ]);
    await start();
    await until(() => statusesOf(stateDir)["ok-1"] === "succeeded+started" && statusesOf(stateDir)["ok-2"] === "succeeded+started", "the two good runs", {
      timeoutMs: 30_000,
    });
    expect(statusesOf(stateDir).broken).toBe("queued");
    const db = pluginDatabaseFile(stateDir);
    // The gateway's stderr is a pipe: json log lines (gateway.logFormat), so the message is read from each object.
    const warning = gw!
      .stderr()
      .split("\n")
      .filter((l) => l.includes("run broken in"))
      .map((l) => String((JSON.parse(l) as { message: unknown }).message));
    expect(warning).toHaveLength(1);
    expect(warning[0]).toContain(`run broken in ${db} is damaged (its action column is not valid JSON (`);
    expect(warning[0]).toContain(`remove it with: sqlite3 "${db}" "DELETE FROM runs WHERE id = 'broken'"`);
    expect((await getRun(gw!, "ok-1")).status).toBe(200);
    const damaged = await getRun(gw!, "broken");
    expect([damaged.status, damaged.body?.code]).toEqual([500, "internal_error"]);
  });

  it("a garbled session-log line is skipped with a warning naming the file and the line; the events around it are kept (regression: dropped silently)", async () => {
    await start();
    for (const text of ["first event", "second event", "third event"]) expect((await postJson(gw!, "wake", { text, mode: "next-heartbeat" })).status).toBe(200);
    expect(await gw!.stop()).toBe(0);
    const stateDir = stateDirOf();
    const log = mainSnapshot(stateDir).replace(/\.json$/, ".log.jsonl");
    const lines = fs.readFileSync(log, "utf8").split("\n");
    const second = lines.findIndex((l) => l.includes("second event"));
    lines[second] = `${lines[second]!.slice(0, 40)}${lines[second + 1]!.slice(0, 30)}`; // a torn line with the next glued onto it
    fs.writeFileSync(log, lines.join("\n"));

    await start();
    const name = `sessions/${path.basename(log)}`;
    expect(gw!.stderr()).toContain(`session log ${name} line ${second + 1} is not valid JSON; skipped`);
    expect(await gw!.stop()).toBe(0);
    const copy = path.join(dir, "sessions-copy");
    fs.cpSync(path.join(stateDir, "sessions"), copy, { recursive: true });
    const texts = createSessionStore({ dir: copy })
      .get("main")
      .pending.map((e) => e.text);
    expect([texts.some((t) => t.includes("first event")), texts.some((t) => t.includes("second event")), texts.some((t) => t.includes("third event"))]).toEqual(
      [true, false, true],
    );
  });

  it("a damaged -wal fails the start with one line naming it and the command that keeps its intact part; after that command the gateway starts (regression: 5 of 6 committed runs vanished without a word)", async () => {
    await start({
      agents: { runner: { kind: "echo", delayMs: 60_000 }, defaults: { heartbeat: { every: "off" } } },
      hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false }, runs: { maxConcurrent: 1 } },
    });
    const stateDir = stateDirOf();
    const wal = `${pluginDatabaseFile(stateDir)}-wal`;
    // The checkpointer copies the log every 50 ms; a reader keeps it from copying the runs' frames
    // (a log damaged inside copied frames is rebuilt instead: the test after this one).
    const reader = await holdReadSnapshot(stateDir);
    readers.push(reader);
    const frames: number[] = [];
    for (let i = 1; i <= 6; i++) {
      expect((await postJson(gw!, "agent", { message: `run ${i}`, name: `R${i}`, deliver: false, wakeMode: "next-heartbeat" })).status).toBe(202);
      frames.push(walFramesNow(stateDir));
    }
    await gw!.kill9();
    gw = undefined;
    await reader.kill9();
    const bytes = fs.readFileSync(wal);
    const pageSize = bytes.readUInt32BE(8);
    bytes[32 + frames[1]! * (24 + pageSize) + 64] ^= 0xff; // inside the third run's first frame
    fs.writeFileSync(wal, bytes);

    fs.writeFileSync(configPath, JSON.stringify(config()));
    const refused = await failedStart();
    expect(refused.code).toBe(1);
    const [reason] = reasonLines(refused.stderr);
    expect(reason).toMatch(
      new RegExp(
        `^gateway: service inbound-webhooks\\.runs of plugin inbound-webhooks failed to start: the plugin database's write-ahead log ${wal.replace(/[.]/g, "\\.")} is damaged: frame \\d+ of \\d+ fails its checksum, so SQLite would silently drop the \\d+ transaction\\(s\\) committed after it`,
      ),
    );
    expect(fs.readFileSync(wal)).toEqual(bytes);
    const cut = /truncate -s (\d+) "(.+)"$/.exec(reason!);
    expect(cut?.[2]).toBe(wal);
    fs.truncateSync(wal, Number(cut![1]));

    await start();
    expect(gw!.stderr()).toContain("plugin database quick_check: ok");
    // The cut keeps what was committed before the damaged frame: the first two runs.
    expect(queryPluginDb<{ name: string }>(stateDir, "SELECT json_extract(action, '$.name') AS name FROM runs ORDER BY seq")).toEqual([
      { name: "R1" },
      { name: "R2" },
    ]);
  });

  /**
   * Six accepted runs, their ledger rows in, the checkpointer's copy settled (the wal-index the
   * same over three of its periods), kill -9, and a byte flipped in the middle of the copied
   * frames. Returns the damaged log and the copy's size. (A copy held back by a reader, where the
   * rebuilt log keeps frames, is tested on real SQLite files in test/store/damaged-database.test.ts:
   * here a reader could not be placed on a mark the checkpointer copies up to.)
   */
  async function crashWithCopiedFrameDamaged(): Promise<{ stateDir: string; wal: string; bytes: Buffer; copied: number; frames: number }> {
    await start({
      agents: { runner: { kind: "echo", delayMs: 60_000 }, defaults: { heartbeat: { every: "off" } } },
      hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false }, runs: { maxConcurrent: 1 } },
    });
    const stateDir = stateDirOf();
    const wal = `${pluginDatabaseFile(stateDir)}-wal`;
    for (let i = 1; i <= 6; i++) {
      expect((await postJson(gw!, "agent", { message: `run ${i}`, name: `R${i}`, deliver: false, wakeMode: "next-heartbeat" })).status).toBe(202);
    }
    // A delivery's ledger row is committed shortly after its answer; after that nothing writes (the first run holds its slot for 60 s).
    await until(() => queryPluginDb<{ n: number }>(stateDir, "SELECT COUNT(*) AS n FROM deliveries")[0]!.n === 6, "the six ledger rows");
    let last = "";
    let same = 0;
    await until(
      () => {
        const index = walIndexNow(stateDir);
        const now = JSON.stringify(index);
        same = now === last && index.copied > 0 ? same + 1 : 0;
        last = now;
        return same >= 3;
      },
      "the checkpointer's copy to settle",
      { intervalMs: 60 },
    );
    await gw!.kill9();
    gw = undefined;
    const bytes = fs.readFileSync(wal);
    const shm = fs.readFileSync(`${pluginDatabaseFile(stateDir)}-shm`);
    expect(shm.subarray(32, 40)).toEqual(bytes.subarray(16, 24)); // the wal-index is this log's
    const { copied, frames } = walIndexNow(stateDir);
    const pageSize = bytes.readUInt32BE(8);
    bytes[32 + Math.floor(copied / 2) * (24 + pageSize) + 64] ^= 0xff;
    fs.writeFileSync(wal, bytes);
    return { stateDir, wal, bytes, copied, frames };
  }

  /** Starts on the damaged log and checks the rebuild kept every run and the damaged log. */
  async function expectRebuilt(crash: Awaited<ReturnType<typeof crashWithCopiedFrameDamaged>>, framesAfter: number): Promise<void> {
    await start();
    expect(gw!.stderr()).toContain(`the plugin database's write-ahead log was damaged (frame ${Math.floor(crash.copied / 2) + 1} of `);
    expect(gw!.stderr()).toContain(
      `inside the ${crash.copied} frame(s) a checkpoint had already copied into the database file; it was rebuilt from the ${framesAfter} frame(s) after them`,
    );
    expect(gw!.stderr()).toContain("plugin database quick_check: ok");
    const kept = fs.readdirSync(path.dirname(crash.wal)).filter((n) => n.includes("-wal.damaged-"));
    expect(kept).toHaveLength(1);
    expect(fs.readFileSync(path.join(path.dirname(crash.wal), kept[0]!))).toEqual(crash.bytes);
    expect(queryPluginDb<{ name: string }>(crash.stateDir, "SELECT json_extract(action, '$.name') AS name FROM runs ORDER BY seq")).toEqual(
      [1, 2, 3, 4, 5, 6].map((i) => ({ name: `R${i}` })),
    );
  }

  it("a -wal damaged inside frames the checkpointer had copied, all of them, is rebuilt at start with a warning, and every accepted run is kept (regression: the advised cut hid runs the database file held)", async () => {
    const crash = await crashWithCopiedFrameDamaged();
    expect(crash.copied).toBe(crash.frames);
    await expectRebuilt(crash, 0);
  });

  it("a torn journal tail is dropped at start with a warning naming the file, and the next line starts clean", async () => {
    const journal = path.join(stateDirOf(), "journal.jsonl");
    fs.appendFileSync(journal, '{"ts":"2030-01-01T00:00:00.000Z","type":"system_ev');
    await start();
    expect(gw!.stderr()).toContain(`journal ${journal} ended in a torn line (a write cut short by a crash); dropped its 50 bytes`);
    expect((await postJson(gw!, "wake", { text: "after the tear", mode: "next-heartbeat" })).status).toBe(200);
    await gw!.waitForJournal((e) => e.type === "system_event" && String(e.text).includes("after the tear"));
    for (const line of fs.readFileSync(journal, "utf8").split("\n").filter(Boolean)) expect(() => JSON.parse(line)).not.toThrow();
  });
});
