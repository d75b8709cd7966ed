/**
 * The storage driver seam (src/store/sqlite-driver.ts): the driver is chosen once
 * (node:sqlite where the runtime has it), and each driver this runtime can load gives
 * the store the same behaviour — SQLite error names as `code` (a full database is
 * SQLITE_FULL, whatever the driver), BLOBs as Buffers, savepoints, and a transaction
 * SQLite rolled back by itself not rolled back twice. Under Node 20 this runs on
 * better-sqlite3, under Node 24 (.ci/run's second pass) on node:sqlite.
 */
import path from "node:path";
import { availableSqliteDrivers, DRIVER_ENV, openSqlite, sqliteDriverName, type SqliteDatabase } from "../../src/store/sqlite-driver";
import { sqliteErrorName } from "../../src/store/sqlite-error-names";
import { tempDir } from "../helpers/temp-dir";

const hasNodeSqlite = (() => {
  try {
    require("node:sqlite");
    return true;
  } catch {
    return false;
  }
})();

describe("sqliteDriverName", () => {
  it("is node:sqlite when the runtime has it, better-sqlite3 otherwise", () => {
    expect(sqliteDriverName({})).toBe(hasNodeSqlite ? "node:sqlite" : "better-sqlite3");
  });

  it(`follows ${DRIVER_ENV} and refuses any other value, naming the variable`, () => {
    expect(sqliteDriverName({ [DRIVER_ENV]: "better-sqlite3" })).toBe("better-sqlite3");
    expect(sqliteDriverName({ [DRIVER_ENV]: "node:sqlite" })).toBe("node:sqlite");
    expect(() => sqliteDriverName({ [DRIVER_ENV]: "sqlite3" })).toThrow(`${DRIVER_ENV} must be "node:sqlite" or "better-sqlite3" (got "sqlite3")`);
  });

  it("finds the driver the process uses among the loadable ones", () => {
    expect(availableSqliteDrivers()).toContain(sqliteDriverName());
  });
});

describe("sqliteErrorName", () => {
  it("names primary and extended result codes as better-sqlite3 does", () => {
    expect(sqliteErrorName(13)).toBe("SQLITE_FULL");
    expect(sqliteErrorName(26)).toBe("SQLITE_NOTADB");
    expect(sqliteErrorName(10 | (3 << 8))).toBe("SQLITE_IOERR_WRITE");
    expect(sqliteErrorName(19 | (6 << 8))).toBe("SQLITE_CONSTRAINT_PRIMARYKEY");
    expect(sqliteErrorName(11 | (40 << 8))).toBe("SQLITE_CORRUPT");
  });
});

describe.each(availableSqliteDrivers())("the %s driver", (driver) => {
  let db: SqliteDatabase;
  beforeEach(() => {
    db = openSqlite(path.join(tempDir().dir, "t.sqlite"), {}, driver);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, data BLOB)");
  });
  afterEach(() => db.close());

  it("binds positional and @named parameters (unused keys allowed) and reads rows back, BLOBs as Buffers", () => {
    const insert = db.prepare<{ id: number; name: string; data: Buffer }>("INSERT INTO t (id, name, data) VALUES (@id, @name, @data)");
    expect(insert.run({ id: 1, name: "a", data: Buffer.from([0, 1, 255]) }).changes).toBe(1);
    const extra = { id: 2, name: "b", data: Buffer.from("x"), unused: "ignored" };
    expect(db.prepare<typeof extra>("INSERT INTO t (id, name, data) VALUES (@id, @name, @data)").run(extra).changes).toBe(1);
    const row = db.prepare<[number], { id: number; name: string; data: Buffer }>("SELECT * FROM t WHERE id = ?").get(1)!;
    expect(Buffer.isBuffer(row.data)).toBe(true);
    expect([...row.data]).toEqual([0, 1, 255]);
    expect(
      db
        .prepare<[], { name: string }>("SELECT name FROM t ORDER BY id")
        .all()
        .map((r) => r.name),
    ).toEqual(["a", "b"]);
    expect(db.prepare("SELECT * FROM t WHERE id = ?").get(99)).toBeUndefined();
  });

  it("reads PRAGMAs as rows and as a single value", () => {
    expect(db.pragmaValue("journal_mode = WAL")).toBe("wal");
    expect(db.pragma("quick_check")).toEqual([{ quick_check: "ok" }]);
    expect(db.pragmaValue("user_version")).toBe(0);
  });

  it("names errors as SQLite does: a constraint, a syntax error, a full database (SQLITE_FULL)", () => {
    db.prepare("INSERT INTO t (id, name) VALUES (1, 'a')").run();
    expect(() => db.prepare("INSERT INTO t (id, name) VALUES (1, 'b')").run()).toThrow(expect.objectContaining({ code: "SQLITE_CONSTRAINT_PRIMARYKEY" }));
    expect(() => db.prepare("SELEC 1")).toThrow(expect.objectContaining({ code: "SQLITE_ERROR" }));
    db.pragma(`max_page_count = ${db.pragmaValue("page_count") as number}`);
    const big = db.prepare("INSERT INTO t (name, data) VALUES ('big', zeroblob(100000))");
    expect(() => big.run()).toThrow(expect.objectContaining({ code: "SQLITE_FULL" }));
  });

  it("commits a transaction, rolls back a failed one, and nests savepoints (an inner failure undoes only the inner writes)", () => {
    const insert = db.prepare<[number, string]>("INSERT INTO t (id, name) VALUES (?, ?)");
    const inner = db.transaction((id: number) => {
      insert.run(id, "inner");
      throw new Error("inner fails");
    });
    db.transaction(() => {
      insert.run(1, "outer");
      expect(db.inTransaction).toBe(true);
      expect(() => inner(2)).toThrow("inner fails");
    }, "immediate")();
    expect(db.inTransaction).toBe(false);
    expect(() =>
      db.transaction(() => {
        insert.run(3, "rolled back");
        throw new Error("outer fails");
      })(),
    ).toThrow("outer fails");
    expect(
      db
        .prepare<[], { id: number }>("SELECT id FROM t")
        .all()
        .map((r) => r.id),
    ).toEqual([1]);
  });

  it("rethrows SQLITE_FULL from a savepoint after SQLite rolled the whole transaction back, and says so (inTransaction false), without a second rollback", () => {
    db.pragma(`max_page_count = ${db.pragmaValue("page_count") as number}`);
    const fill = db.transaction(() => db.prepare("INSERT INTO t (name, data) VALUES ('big', zeroblob(100000))").run());
    let seen: unknown;
    let stillInTransaction: boolean | undefined;
    const outer = db.transaction(() => {
      try {
        fill();
      } catch (e) {
        seen = e;
      }
      stillInTransaction = db.inTransaction;
    });
    // What write-batch.ts relies on: the batch learns that nothing of it is stored.
    expect(() => outer()).toThrow(/no transaction is active/);
    expect(seen).toEqual(expect.objectContaining({ code: "SQLITE_FULL" }));
    expect(stillInTransaction).toBe(false);
    expect(db.inTransaction).toBe(false);
  });

  it("is closed once: open turns false", () => {
    db.close();
    expect(db.open).toBe(false);
    db = openSqlite(":memory:", {}, driver);
  });
});

(hasNodeSqlite ? describe : describe.skip)("on a runtime with node:sqlite", () => {
  it("opens the plugin database without ever requiring better-sqlite3 (a native addon OpenClaw's Node 24 cannot load)", () => {
    jest.isolateModules(() => {
      // virtual: also where it is not installed at all (npm install --omit=optional).
      jest.doMock(
        "better-sqlite3",
        () => {
          throw new Error("better-sqlite3 was required");
        },
        { virtual: true },
      );
      const saved = process.env[DRIVER_ENV];
      delete process.env[DRIVER_ENV];
      try {
        const { openPluginDatabase } = require("../../src/store/database") as typeof import("../../src/store/database");
        const quiet = { debug() {}, info() {}, warn() {}, error() {} };
        const database = openPluginDatabase({ dir: tempDir().dir, logger: quiet });
        expect(database.db.driver).toBe("node:sqlite");
        database.close();
      } finally {
        if (saved !== undefined) process.env[DRIVER_ENV] = saved;
      }
    });
  });
});
