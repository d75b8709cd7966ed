import { spawnSync } from "node:child_process";
import path from "node:path";
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { MIGRATIONS, migrate } from "../../src/store/migrations";
import { openSqlite } from "../../src/store/sqlite-driver";
import { agentAction, actionSource, recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";

const ROOT = path.resolve(__dirname, "../..");

describe("createSqliteRunStore", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  const open = () => openPluginDatabase({ dir: tmp.dir, logger: log.logger });
  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("store");
    database = open();
  });
  afterEach(() => {
    database.close();
    log.close();
    tmp.remove();
  });

  it("round-trips a run with its JSON action and source and the idempotency key", () => {
    const store = createSqliteRunStore(database);
    const run = runRecord({
      id: "0b7f6a2e-0000-4000-8000-000000000001",
      seq: store.nextSeq(),
      action: agentAction({ model: "openai/gpt-5", thinking: "low", to: "+15551234567", channel: "phone_chat" }),
      source: actionSource({ hook: "github", mappingId: "gh", requestId: "r-9", allowUnsafeExternalContent: true }),
      idempotencyKey: '["github","delivery-1"]',
    });
    store.insert(run);
    expect(store.get(run.id)).toEqual(run);
    expect(store.get("missing")).toBeUndefined();
  });

  it("insertAll stores every run in one transaction: one bad row (a duplicate id) → none of the batch is inserted", () => {
    const store = createSqliteRunStore(database);
    const existing = runRecord({ id: "0b7f6a2e-0000-4000-8000-0000000000aa", seq: store.nextSeq() });
    store.insert(existing);
    const first = runRecord({ id: "0b7f6a2e-0000-4000-8000-0000000000b1", seq: existing.seq + 1, idempotencyKey: '["/hooks/batch","k"]#0' });
    const second = runRecord({ id: "0b7f6a2e-0000-4000-8000-0000000000b2", seq: existing.seq + 2, idempotencyKey: '["/hooks/batch","k"]#1' });
    const clash = runRecord({ id: existing.id, seq: existing.seq + 3 });
    expect(() => store.insertAll([first, second, clash])).toThrow(/UNIQUE constraint failed/);
    expect([store.get(first.id), store.get(second.id)]).toEqual([undefined, undefined]);
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM runs").get()).toEqual({ n: 1 });
    store.insertAll([first, second]);
    expect([store.get(first.id)?.id, store.get(second.id)?.id]).toEqual([first.id, second.id]);
  });

  it("omits absent optional fields rather than returning nulls", () => {
    const store = createSqliteRunStore(database);
    store.insert(runRecord({ id: "a", seq: store.nextSeq() }));
    const got = store.get("a")!;
    expect(Object.keys(got).sort()).toEqual(["action", "createdAt", "id", "seq", "source", "status"]);
  });

  it("applies status transitions and timestamps; a key given as undefined leaves the column unchanged (like the memory store)", () => {
    const store = createSqliteRunStore(database);
    store.insert(runRecord({ id: "a", seq: store.nextSeq() }));
    store.update("a", { status: "running", startedAt: "2030-01-01T00:00:01.000Z" });
    expect(store.get("a")).toMatchObject({ status: "running", startedAt: "2030-01-01T00:00:01.000Z" });
    store.update("a", { status: "succeeded", finishedAt: "2030-01-01T00:00:02.000Z", summary: "Hook CI: done", error: undefined });
    expect(store.get("a")).toEqual({
      ...runRecord({ id: "a", seq: 1 }),
      status: "succeeded",
      startedAt: "2030-01-01T00:00:01.000Z",
      finishedAt: "2030-01-01T00:00:02.000Z",
      summary: "Hook CI: done",
    });
    store.update("a", { summary: undefined });
    expect(store.get("a")!.summary).toBe("Hook CI: done");
    store.update("a", {});
    expect(store.get("a")!.status).toBe("succeeded");
  });

  it("lists by status in seq order and counts queued runs", () => {
    const store = createSqliteRunStore(database);
    const seqs = [store.nextSeq(), store.nextSeq(), store.nextSeq(), store.nextSeq()];
    // Inserted out of order on purpose.
    store.insert(runRecord({ id: "c", seq: seqs[2]!, status: "queued" }));
    store.insert(runRecord({ id: "a", seq: seqs[0]!, status: "queued" }));
    store.insert(runRecord({ id: "b", seq: seqs[1]!, status: "running" }));
    store.insert(runRecord({ id: "d", seq: seqs[3]!, status: "succeeded" }));
    expect(store.listByStatus(["queued"]).map((r) => r.id)).toEqual(["a", "c"]);
    expect(store.listByStatus(["queued", "running"]).map((r) => r.id)).toEqual(["a", "b", "c"]);
    expect(store.listByStatus([])).toEqual([]);
    expect(store.countQueued()).toBe(2);
  });

  it("continues the sequence after a reopen", () => {
    const store = createSqliteRunStore(database);
    expect(store.nextSeq()).toBe(1);
    store.insert(runRecord({ id: "a", seq: store.nextSeq() }));
    store.insert(runRecord({ id: "b", seq: store.nextSeq() }));
    database.close();
    database = open();
    const again = createSqliteRunStore(database);
    expect(again.nextSeq()).toBe(4);
    expect(again.get("b")!.seq).toBe(3);
  });

  it("update of an unknown run throws, like the memory store", () => {
    const store = createSqliteRunStore(database);
    expect(() => store.update("nope", { status: "running" })).toThrow("run nope does not exist");
    expect(() => store.update("nope", {})).toThrow("run nope does not exist");
  });

  it("refuses a duplicate id or seq", () => {
    const store = createSqliteRunStore(database);
    store.insert(runRecord({ id: "a", seq: 1 }));
    expect(() => store.insert(runRecord({ id: "a", seq: 2 }))).toThrow(/UNIQUE/);
    expect(() => store.insert(runRecord({ id: "b", seq: 1 }))).toThrow(/UNIQUE/);
  });

  it("deletes terminal runs older than the retention at creation, never queued or running ones", () => {
    const now = Date.parse("2030-02-01T00:00:00.000Z");
    const store = createSqliteRunStore(database, { clock: () => now });
    store.insert(runRecord({ id: "old-done", seq: 1, status: "succeeded", finishedAt: "2030-01-01T00:00:00.000Z" }));
    store.insert(runRecord({ id: "old-queued", seq: 2, status: "queued" }));
    store.insert(runRecord({ id: "recent-done", seq: 3, status: "failed", finishedAt: "2030-01-30T00:00:00.000Z" }));
    const again = createSqliteRunStore(database, { clock: () => now, retentionDays: 7 });
    expect(again.get("old-done")).toBeUndefined();
    expect(again.get("old-queued")).toBeDefined();
    expect(again.get("recent-done")).toBeDefined();
  });

  it("close() closes the database it was built on", () => {
    const store = createSqliteRunStore(database);
    store.close();
    expect(database.isOpen).toBe(false);
  });

  it("a run inserted just before kill -9 is there after reopening (insert commits before returning)", () => {
    database.close();
    const script = `
      const { createJiti } = require("jiti");
      const jiti = createJiti(${JSON.stringify(path.join(ROOT, "child.js"))});
      const { openPluginDatabase } = jiti("./src/store/database.ts");
      const { createSqliteRunStore } = jiti("./src/store/run-store.ts");
      const quiet = { debug() {}, info() {}, warn() {}, error() {} };
      const store = createSqliteRunStore(openPluginDatabase({ dir: process.argv[1], logger: quiet }));
      for (let i = 0; i < 50; i++) {
        store.insert({ id: "run-" + i, seq: store.nextSeq(), status: "queued",
          action: { kind: "agent", message: "m" + i, name: "Hook", sessionKey: "hook:k", wakeMode: "now", deliver: false, channel: "last", timeoutSeconds: 5 },
          source: { hook: "agent", requestId: "r" + i, allowUnsafeExternalContent: false },
          createdAt: new Date().toISOString() });
      }
      process.kill(process.pid, "SIGKILL");
    `;
    const child = spawnSync(process.execPath, ["-e", script, tmp.dir], { cwd: ROOT, encoding: "utf8", timeout: 20_000 });
    expect(child.signal).toBe("SIGKILL");
    database = open();
    const store = createSqliteRunStore(database);
    expect(store.countQueued()).toBe(50);
    expect(store.get("run-49")!.action.message).toBe("m49");
    expect(store.nextSeq()).toBe(51);
  });
});

describe("createSqliteRunStore: a damaged row", () => {
  it("is skipped by listByStatus with one warning naming the database and the run (and how to remove it); the other runs are listed; get() names it too (regression: one bad row blocked the whole gateway naming neither)", () => {
    const tmp = tempDir();
    const log = recordingLogger("store");
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      const store = createSqliteRunStore(database, { logger: log.logger });
      store.insert(runRecord({ id: "good-1", seq: store.nextSeq() }));
      store.insert(runRecord({ id: "bad", seq: store.nextSeq() }));
      store.insert(runRecord({ id: "good-2", seq: store.nextSeq() }));
      database.db.prepare("UPDATE runs SET action = ? WHERE id = 'bad'").run('{"kind":"agent","message":"cut');

      expect(store.listByStatus(["queued"]).map((r) => r.id)).toEqual(["good-1", "good-2"]);
      expect(store.listByStatus(["queued"]).map((r) => r.id)).toEqual(["good-1", "good-2"]);
      const warnings = log.lines.filter((l) => l.level === "warn");
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.message).toMatch(
        new RegExp(
          `^run bad in ${database.file.replace(/[.]/g, "\\.")} is damaged \\(its action column is not valid JSON \\(.+\\)\\) and was skipped; it stays in the database as it is\\. ` +
            `Inspect it, or remove it with: sqlite3 "${database.file.replace(/[.]/g, "\\.")}" "DELETE FROM runs WHERE id = 'bad'"$`,
        ),
      );
      expect(() => store.get("bad")).toThrow(`run bad in ${database.file} is damaged (its action column is not valid JSON`);
      expect(store.get("good-2")?.id).toBe("good-2");
    } finally {
      database.close();
      log.close();
      tmp.remove();
    }
  });

  it("names the field when the JSON parses but a field the queue needs is missing", () => {
    const tmp = tempDir();
    const log = recordingLogger("store");
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      const store = createSqliteRunStore(database, { logger: log.logger });
      store.insert(runRecord({ id: "no-key", seq: store.nextSeq() }));
      database.db.prepare("UPDATE runs SET action = json_remove(action, '$.sessionKey') WHERE id = 'no-key'").run();
      expect(store.listByStatus(["queued"])).toEqual([]);
      expect(log.lines.find((l) => l.level === "warn")?.message).toContain("is damaged (its action has no valid sessionKey)");
    } finally {
      database.close();
      log.close();
      tmp.remove();
    }
  });
});

describe("run migration 8 (attempts)", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  beforeEach(() => {
    tmp = tempDir("iw-runs-m8-");
    log = recordingLogger("store");
  });
  afterEach(() => {
    log.close();
    tmp.remove();
  });

  /** A schema-7 database (before attempts were counted) holding `n` running runs, one queued and one succeeded. */
  function schema7(n: number): void {
    const raw = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"));
    migrate(raw, MIGRATIONS.slice(0, 7));
    const insert = raw.prepare<unknown[]>("INSERT INTO runs (id, seq, status, action, source, created_at, started_at) VALUES (?, ?, ?, ?, ?, ?, ?)");
    const row = (id: string, seq: number, status: string, startedAt: string | null) =>
      insert.run(
        id,
        seq,
        status,
        JSON.stringify(agentAction({ message: `message ${id} `.repeat(20) })),
        JSON.stringify(actionSource()),
        "2030-01-01T00:00:00.000Z",
        startedAt,
      );
    raw.transaction(() => {
      for (let i = 0; i < n; i++) row(`running-${i}`, i + 1, "running", "2030-01-01T00:00:01.000Z");
      row("queued", n + 1, "queued", null);
      row("done", n + 2, "succeeded", "2030-01-01T00:00:01.000Z");
    }, "immediate")();
    raw.close();
  }

  it("a schema-7 database keeps its runs; a run already started counts as started once, a queued one as never started", () => {
    schema7(1);
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
      const store = createSqliteRunStore(database);
      expect(store.get("running-0")).toMatchObject({ status: "running", attempts: 1 });
      expect(store.get("queued")).not.toHaveProperty("attempts");
      expect(store.get("done")).toMatchObject({ status: "succeeded", attempts: 1 });
    } finally {
      database.close();
    }
  });

  it("a write that fails during the migration (a full disk, an I/O error) leaves the database at schema 7 with its runs, migrated at the next open", () => {
    schema7(3);
    const raw = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"));
    // Migration 8's statements run, then the same transaction fails, as a full disk would make it.
    expect(() => migrate(raw, [...MIGRATIONS, "INSERT INTO no_such_table VALUES (1)"])).toThrow(/no_such_table/);
    expect(raw.pragmaValue("user_version")).toBe(7);
    expect(raw.pragma("table_info(runs)").map((c) => (c as { name: string }).name)).not.toContain("attempts");
    raw.close();
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
      const store = createSqliteRunStore(database);
      expect(store.listByStatus(["running"]).map((r) => r.attempts)).toEqual([1, 1, 1]);
    } finally {
      database.close();
    }
  });

  it("the start of a run is counted in the same write that marks it running", () => {
    schema7(0);
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    try {
      const store = createSqliteRunStore(database);
      store.update("queued", { status: "running", startedAt: "2030-01-01T00:00:02.000Z", attempts: 1 });
      expect(database.db.prepare("SELECT status, attempts FROM runs WHERE id = 'queued'").get()).toEqual({ status: "running", attempts: 1 });
    } finally {
      database.close();
    }
  });
});
