/**
 * The plugin database's group commit: a turn's staged writes run in one
 * transaction; a write that throws fails alone (its savepoint is rolled back);
 * a transaction SQLite rolls back (a full database) fails every write of the batch
 * and stores none of them.
 */
import { useTempDatabase } from "../helpers/temp-database";

describe("write batch", () => {
  const t = useTempDatabase();
  beforeEach(() => {
    t.database.db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)");
  });
  const insert =
    (k: string, v = "x") =>
    () =>
      t.database.db.prepare("INSERT INTO t (k, v) VALUES (?, ?)").run(k, v).changes;
  const keys = () => (t.database.db.prepare("SELECT k FROM t ORDER BY k").all() as Array<{ k: string }>).map((r) => r.k);

  it("runs the writes staged in one turn in one transaction, resolving each with its result once committed", async () => {
    const seen: boolean[] = [];
    const a = t.database.batch.stage(() => (seen.push(t.database.db.inTransaction), insert("a")()));
    const b = t.database.batch.stage(() => (seen.push(t.database.db.inTransaction), insert("b")()));
    expect([keys(), t.database.batch.staged]).toEqual([[], 2]);
    await expect(Promise.all([a, b])).resolves.toEqual([1, 1]);
    expect([keys(), seen, t.database.batch.staged]).toEqual([["a", "b"], [true, true], 0]);
  });

  it("a write that throws fails alone: the others of its batch are committed", async () => {
    t.database.db.prepare("INSERT INTO t (k) VALUES ('dup')").run();
    const ok1 = t.database.batch.stage(insert("a"));
    const bad = t.database.batch.stage(insert("dup"));
    const ok2 = t.database.batch.stage(insert("b"));
    await expect(bad).rejects.toMatchObject({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" });
    await expect(Promise.all([ok1, ok2])).resolves.toEqual([1, 1]);
    expect(keys()).toEqual(["a", "b", "dup"]);
  });

  it("a full database fails every write of the batch with SQLITE_FULL and stores none of them (regression: writes after the automatic rollback were autocommitted)", async () => {
    const pages = t.database.db.pragmaValue("page_count") as number;
    t.database.db.pragma(`max_page_count = ${pages}`);
    const big = "v".repeat(64 * 1024);
    const staged = [t.database.batch.stage(insert("a")), t.database.batch.stage(insert("b", big)), t.database.batch.stage(insert("c"))];
    const results = await Promise.allSettled(staged);
    expect(results.map((r) => (r.status === "rejected" ? (r.reason as { code?: string }).code : "stored"))).toEqual([
      "SQLITE_FULL",
      "SQLITE_FULL",
      "SQLITE_FULL",
    ]);
    expect(keys()).toEqual([]);
  });

  it("close() commits what is staged before closing", async () => {
    const a = t.database.batch.stage(insert("a"));
    const file = t.database.file;
    t.database.close();
    await expect(a).resolves.toBe(1);
    t.reopen();
    expect(keys()).toEqual(["a"]);
    expect(file).toBe(t.database.file);
  });
});
