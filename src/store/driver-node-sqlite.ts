/**
 * The `node:sqlite` driver (sqlite-driver.ts): the runtime's built-in `DatabaseSync`
 * (Node ≥ 22.13), made to behave as the store expects of better-sqlite3:
 *   - errors carry SQLite's name as `code` (`SQLITE_FULL`, `SQLITE_IOERR_WRITE` …;
 *     node:sqlite gives `ERR_SQLITE_ERROR` with the number in `errcode`), so a full
 *     disk still maps to 503 `storage_unavailable`;
 *   - BLOB columns come back as Buffers (node:sqlite gives Uint8Arrays);
 *   - transactions nest as savepoints, and a failed one is rolled back unless SQLite
 *     already did (it does on SQLITE_FULL, SQLITE_IOERR …), as better-sqlite3 does;
 *   - named parameters bind `@name` from `{ name }`, and unused keys are allowed.
 * `inTransaction` uses `isTransaction` (Node ≥ 22.16) or, before it, asks SQLite by
 * trying a BEGIN (which fails inside a transaction) and rolling it back.
 */
import { sqliteErrorName } from "./sqlite-error-names";
import type { OpenSqliteOptions, SqliteDatabase, SqliteRunResult, SqliteStatement } from "./sqlite-types";

/** What the store uses of node:sqlite (not in @types/node 20). */
interface NodeStatementSync {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Array<Record<string, unknown>>;
  setAllowUnknownNamedParameters?(enabled: boolean): void;
}
interface NodeDatabaseSync {
  readonly isTransaction?: boolean;
  prepare(sql: string): NodeStatementSync;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (file: string, options?: { readOnly?: boolean }) => NodeDatabaseSync;
}

let loaded: NodeSqliteModule | null | undefined;

function loadNodeSqlite(): NodeSqliteModule | null {
  if (loaded !== undefined) return loaded;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- absent before Node 22.13
    loaded = require("node:sqlite") as NodeSqliteModule;
  } catch {
    loaded = null;
  }
  return loaded;
}

export function nodeSqliteAvailable(): boolean {
  return loadNodeSqlite() !== null;
}

/** node:sqlite's error with SQLite's name as `code` (the original as `cause`); other errors unchanged. */
function named(e: unknown): unknown {
  const err = e as { code?: string; errcode?: number; message?: string };
  if (err?.code !== "ERR_SQLITE_ERROR" || typeof err.errcode !== "number") return e;
  return Object.assign(new Error(err.message, { cause: e }), { code: sqliteErrorName(err.errcode), errcode: err.errcode });
}

function guarded<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw named(e);
  }
}

/** Uint8Array column values as Buffers (in place: node:sqlite returns a fresh object per row). */
function withBuffers<R extends Record<string, unknown> | undefined>(row: R): R {
  if (row === undefined) return row;
  for (const k in row) {
    const v = row[k];
    if (v instanceof Uint8Array && !Buffer.isBuffer(v)) (row as Record<string, unknown>)[k] = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
  }
  return row;
}

function wrapStatement<P extends unknown[], R>(s: NodeStatementSync): SqliteStatement<P, R> {
  s.setAllowUnknownNamedParameters?.(true);
  return {
    run: (...p) => guarded(() => s.run(...p)),
    get: (...p) => guarded(() => withBuffers(s.get(...p))) as R | undefined,
    all: (...p) => guarded(() => s.all(...p).map(withBuffers)) as R[],
  };
}

export function openNodeSqlite(file: string, options: OpenSqliteOptions): SqliteDatabase {
  const { DatabaseSync } = loadNodeSqlite()!;
  const db = guarded(() => new DatabaseSync(file, options.readonly ? { readOnly: true } : {}));
  let open = true;
  const exec = (sql: string): void => guarded(() => db.exec(sql));
  const inTransaction = (): boolean => {
    if (typeof db.isTransaction === "boolean") return db.isTransaction;
    try {
      db.exec("BEGIN");
    } catch {
      return true;
    }
    db.exec("ROLLBACK");
    return false;
  };
  const pragma = (source: string): unknown[] => guarded(() => db.prepare(`PRAGMA ${source}`).all().map(withBuffers));

  function transaction<A extends unknown[], T>(fn: (...args: A) => T, mode: "deferred" | "immediate" = "deferred") {
    return (...args: A): T => {
      const nested = inTransaction();
      exec(nested ? `SAVEPOINT "\t_store\t"` : mode === "immediate" ? "BEGIN IMMEDIATE" : "BEGIN");
      try {
        const result = fn(...args);
        exec(nested ? `RELEASE "\t_store\t"` : "COMMIT");
        return result;
      } catch (e) {
        if (inTransaction()) {
          if (nested) {
            exec(`ROLLBACK TO "\t_store\t"`);
            exec(`RELEASE "\t_store\t"`);
          } else exec("ROLLBACK");
        }
        throw e;
      }
    };
  }

  return {
    driver: "node:sqlite",
    get open() {
      return open;
    },
    get inTransaction() {
      return open && inTransaction();
    },
    prepare: <P, R>(sql: string) => wrapStatement<P extends unknown[] ? P : [P], R>(guarded(() => db.prepare(sql))),
    exec,
    pragma,
    pragmaValue: (source) => {
      const row = pragma(source)[0] as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    },
    transaction,
    close() {
      if (!open) return;
      guarded(() => db.close());
      open = false;
    },
  };
}
