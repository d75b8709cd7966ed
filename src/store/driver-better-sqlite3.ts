/**
 * The `better-sqlite3` driver (sqlite-driver.ts): the native addon, required only
 * when this function runs — never on a runtime that has `node:sqlite` — so that a
 * runtime without a build of it (Node 24 inside OpenClaw) never loads it.
 * better-sqlite3 already speaks the seam's language (SQLite error names as `code`,
 * Buffers, savepoints for nested transactions); this only narrows it.
 */
import type BetterSqlite3 from "better-sqlite3";
import type { OpenSqliteOptions, SqliteDatabase, SqliteStatement } from "./sqlite-types";

type Constructor = typeof BetterSqlite3;

let loaded: Constructor | undefined;

function loadBetterSqlite3(): Constructor {
  if (loaded) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    loaded = require("better-sqlite3") as Constructor;
  } catch (e) {
    // An optional dependency: absent when installed with --omit=optional or when its build failed.
    throw new Error(
      `the plugin database needs better-sqlite3 on Node ${process.version}, and it cannot be loaded (${(e as Error).message.split("\n")[0]}): ` +
        "install it (npm install better-sqlite3), or run on Node ≥ 22.13, which has the built-in node:sqlite",
      { cause: e },
    );
  }
  return loaded;
}

/** Where better-sqlite3 is installed (a worker thread opens it from there: checkpointer.ts). */
export function betterSqlite3Path(): string {
  return require.resolve("better-sqlite3");
}

export function openBetterSqlite3(file: string, options: OpenSqliteOptions): SqliteDatabase {
  const Database = loadBetterSqlite3();
  const db = new Database(file, options.readonly ? { readonly: true, fileMustExist: true } : {});
  return {
    driver: "better-sqlite3",
    get open() {
      return db.open;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    prepare: <P, R>(sql: string) => db.prepare(sql) as unknown as SqliteStatement<P extends unknown[] ? P : [P], R>,
    exec: (sql) => void db.exec(sql),
    pragma: (source) => db.pragma(source) as unknown[],
    pragmaValue: (source) => db.pragma(source, { simple: true }),
    transaction(fn, mode) {
      const tx = db.transaction(fn);
      return (mode === "immediate" ? tx.immediate : tx) as typeof fn;
    },
    close: () => void db.close(),
  } as SqliteDatabase;
}
