/** The driver seam's types (sqlite-driver.ts): the subset of a SQLite binding the store uses. */
export type SqliteDriverName = "node:sqlite" | "better-sqlite3";

export interface SqliteRunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface SqliteStatement<P extends unknown[] = unknown[], R = unknown> {
  run(...params: P): SqliteRunResult;
  get(...params: P): R | undefined;
  all(...params: P): R[];
}

export interface SqliteDatabase {
  readonly driver: SqliteDriverName;
  /** False once closed. */
  readonly open: boolean;
  /** True inside a transaction (also false after SQLite rolled one back by itself, e.g. on SQLITE_FULL). */
  readonly inTransaction: boolean;
  /** A prepared statement; an object parameter binds `@name` placeholders. */
  prepare<P extends unknown[] | object = unknown[], R = unknown>(sql: string): SqliteStatement<P extends unknown[] ? P : [P], R>;
  /** Runs one or more statements without results. */
  exec(sql: string): void;
  /** The rows of a PRAGMA (`pragma("quick_check")`). */
  pragma(source: string): unknown[];
  /** The first column of the first row of a PRAGMA (`pragmaValue("user_version")`). */
  pragmaValue(source: string): unknown;
  /**
   * Wraps `fn` in a transaction (BEGIN or, inside one, a savepoint): committed when it
   * returns, rolled back when it throws. "immediate" takes the write lock at BEGIN.
   */
  transaction<A extends unknown[], T>(fn: (...args: A) => T, mode?: "deferred" | "immediate"): (...args: A) => T;
  close(): void;
}

export interface OpenSqliteOptions {
  /** Open read-only; the file must exist. */
  readonly?: boolean;
}
