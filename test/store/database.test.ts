import fs from "node:fs";
import path from "node:path";
import { openSqlite } from "../../src/store/sqlite-driver";
import { openPluginDatabase, DEFAULT_DATABASE_FILE } from "../../src/store/database";
import { MIGRATIONS, migrate } from "../../src/store/migrations";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

describe("openPluginDatabase", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("store");
  });
  afterEach(() => {
    log.close();
    tmp.remove();
  });

  it("creates the directory and the file, in WAL mode with synchronous NORMAL and a busy timeout", () => {
    const dir = path.join(tmp.dir, "nested", "state");
    const database = openPluginDatabase({ dir, logger: log.logger });
    try {
      expect(database.file).toBe(path.join(dir, DEFAULT_DATABASE_FILE));
      expect(fs.existsSync(database.file)).toBe(true);
      expect(database.db.pragmaValue("journal_mode")).toBe("wal");
      expect(database.db.pragmaValue("synchronous")).toBe(1); // NORMAL
      expect(database.db.pragmaValue("busy_timeout")).toBe(5000);
      expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
      expect(database.isOpen).toBe(true);
    } finally {
      database.close();
    }
  });

  (process.platform === "win32" ? it.skip : it)(
    "the data dir and the database with its -wal/-shm were readable by other users (0755/0644): now 0700/0600",
    () => {
      const dir = path.join(tmp.dir, "nested", "state");
      const database = openPluginDatabase({ dir, logger: log.logger });
      try {
        database.db.prepare("CREATE TABLE t (x)").run();
        const mode = (p: string) => fs.statSync(p).mode & 0o777;
        expect([mode(path.join(tmp.dir, "nested")), mode(dir)]).toEqual([0o700, 0o700]);
        for (const f of [database.file, `${database.file}-wal`, `${database.file}-shm`]) expect([f, mode(f)]).toEqual([f, 0o600]);
      } finally {
        database.close();
      }
    },
  );

  it("honours synchronous FULL when asked", () => {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger, synchronous: "FULL" });
    expect(database.db.pragmaValue("synchronous")).toBe(2);
    database.close();
  });

  it("creates the runs, idempotency, delivery-ledger and session-event tables with their indexes, and the ledger's search index", () => {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const names = database.db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type IN ('table','index') AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(names).toEqual([
      "deliveries",
      "deliveries_fts",
      "deliveries_fts_config",
      "deliveries_fts_data",
      "deliveries_fts_docsize",
      "deliveries_fts_idx",
      "deliveries_hook_seq",
      "deliveries_received_at",
      "deliveries_refused_seq",
      "deliveries_run_id",
      "idempotency_keys",
      "idempotency_keys_expires_at",
      "runs",
      "runs_finished_at",
      "runs_idempotency_key",
      "runs_status_seq",
      "session_events",
      "session_events_key",
    ]);
    database.close();
  });

  it("reopens an existing database without re-running migrations", () => {
    const first = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    first.db
      .prepare("INSERT INTO idempotency_keys (scope, key, body_hash, state, status, created_at, expires_at) VALUES ('agent','k','h','complete',202,1,?)")
      .run(Date.now() + 60_000);
    first.close();
    const second = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(second.db.prepare("SELECT COUNT(*) AS n FROM idempotency_keys").get()).toEqual({ n: 1 });
    second.close();
  });

  it("refuses a database written by a newer schema version, naming both versions", () => {
    const file = path.join(tmp.dir, DEFAULT_DATABASE_FILE);
    const raw = openSqlite(file);
    raw.pragma(`user_version = ${MIGRATIONS.length + 1}`);
    raw.close();
    expect(() => openPluginDatabase({ dir: tmp.dir, logger: log.logger })).toThrow(
      `the plugin database has schema version ${MIGRATIONS.length + 1} but this version of the plugin knows only ${MIGRATIONS.length}`,
    );
  });

  it("applies only the missing migrations, in one transaction", () => {
    const raw = openSqlite(":memory:");
    expect(migrate(raw, ["CREATE TABLE a (x)"])).toBe(1);
    expect(migrate(raw, ["CREATE TABLE a (x)", "CREATE TABLE b (y)"])).toBe(2);
    expect(() => migrate(raw, ["CREATE TABLE a (x)", "CREATE TABLE b (y)", "CREATE TABLE c (z)", "NOT SQL"])).toThrow();
    // The failed batch rolled back: c does not exist and the version is unchanged.
    expect(raw.pragmaValue("user_version")).toBe(2);
    expect(raw.prepare("SELECT COUNT(*) AS n FROM sqlite_master WHERE name = 'c'").get()).toEqual({ n: 0 });
    raw.close();
  });

  it("purges expired idempotency records at open (injected clock)", () => {
    const first = openPluginDatabase({ dir: tmp.dir, logger: log.logger, clock: () => 1_000 });
    const ins = first.db.prepare(
      "INSERT INTO idempotency_keys (scope, key, body_hash, state, status, created_at, expires_at) VALUES ('agent', ?, 'h', 'complete', 202, 0, ?)",
    );
    ins.run("old", 5_000);
    ins.run("fresh", 50_000);
    first.close();
    const second = openPluginDatabase({ dir: tmp.dir, logger: log.logger, clock: () => 10_000 });
    expect(second.db.prepare("SELECT key FROM idempotency_keys").all()).toEqual([{ key: "fresh" }]);
    expect(log.lines.find((l) => l.message === "plugin database open" && l.meta?.idempotencyPurged === 1)).toBeDefined();
    second.close();
  });

  it("close() is idempotent and checkpoints the WAL", () => {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    database.db.prepare("INSERT INTO idempotency_keys (scope, key, body_hash, state, created_at, expires_at) VALUES ('a','b','c','pending',0,1)").run();
    database.close();
    database.close();
    expect(database.isOpen).toBe(false);
    const wal = `${database.file}-wal`;
    expect(fs.existsSync(wal) ? fs.statSync(wal).size : 0).toBe(0);
  });
});
