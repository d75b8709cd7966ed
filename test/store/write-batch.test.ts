/**
 * The plugin database's group commit: a turn's staged writes run in one
 * transaction; a write that throws fails alone (its savepoint is rolled back);
 * a transaction SQLite rolls back (a full database) fails every write of the batch
 * and stores none of them.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

describe("write batch", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("store");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    database.db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)");
  });
  afterEach(() => {
    database.close();
    log.close();
    tmp.remove();
  });
  const insert = (k: string, v = "x") => () => database.db.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v).changes;
  const keys = () => (database.db.prepare("SELECT k FROM t ORDER BY k").all() as Array<{ k: string }>).map((r) => r.k);

  it("runs the writes staged in one turn in one transaction, resolving each with its result once committed", async () => {
    const seen: boolean[] = [];
    const a = database.batch.stage(() => (seen.push(database.db.inTransaction), insert("a")()));
    const b = database.batch.stage(() => (seen.push(database.db.inTransaction), insert("b")()));
    expect([keys(), database.batch.staged]).toEqual([[], 2]);
    await expect(Promise.all([a, b])).resolves.toEqual([1, 1]);
    expect([keys(), seen, database.batch.staged]).toEqual([["a", "b"], [true, true], 0]);
  });

  it("a write that throws fails alone: the others of its batch are committed", async () => {
    database.db.prepare("INSERT INTO t (k) VALUES ('dup')").run();
    const ok1 = database.batch.stage(insert("a"));
    const bad = database.batch.stage(insert("dup"));
    const ok2 = database.batch.stage(insert("b"));
    await expect(bad).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    await expect(Promise.all([ok1, ok2])).resolves.toEqual([1, 1]);
    expect(keys()).toEqual(["a", "b", "dup"]);
  });

  it("a full database fails every write of the batch with SQLITE_FULL and stores none of them (regression: writes after the automatic rollback were autocommitted)", async () => {
    const pages = database.db.pragmaValue("page_count") as number;
    database.db.pragma(`max_page_count = ${pages}`);
    const big = "v".repeat(64 * 1024);
    const staged = [database.batch.stage(insert("a")), database.batch.stage(insert("b", big)), database.batch.stage(insert("c"))];
    const results = await Promise.allSettled(staged);
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : "stored"))).toEqual(["SQLITE_FULL", "SQLITE_FULL", "SQLITE_FULL"]);
    expect(keys()).toEqual([]);
  });

  it("close() commits what is staged before closing", async () => {
    const a = database.batch.stage(insert("a"));
    const file = database.file;
    database.close();
    await expect(a).resolves.toBe(1);
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(keys()).toEqual(["a"]);
    expect(file).toBe(database.file);
  });
});
