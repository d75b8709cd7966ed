/**
 * Group commit for the plugin database: the writes staged during one turn of the
 * event loop (the run INSERTs and idempotency records of every request parsed in
 * that turn) run in one transaction at the end of the turn, and each stager's
 * promise settles once that transaction committed — so a 202 still means the run
 * is stored, but a burst of requests costs one commit (one WAL sync with
 * `synchronous=FULL`) instead of one per request.
 *
 * A write that throws (a constraint, a damaged row) fails alone: the batch is
 * rolled back and run again with each write in its own savepoint, so only that
 * write's promise rejects (writes are SQL only, so running them again is safe). When the
 * transaction itself fails (disk full, I/O error: at the commit, or on a write
 * after which SQLite rolled the transaction back) every write of the batch is
 * rolled back and every promise rejects with that error.
 *
 * Synchronous writes elsewhere need not wait: SQLite serialises them, and the
 * batch's order among them is its commit. `flush()` commits what is staged now
 * (called before the database closes).
 *
 * @example
 *   const batch = createWriteBatch(db);
 *   await batch.stage(() => insertStmt.run(row)); // stored once this resolves
 */
import type { SqliteDatabase } from "./sqlite-types";

export interface WriteBatch {
  /** Runs `write` in the turn's transaction; resolves with its result once committed. */
  stage<T>(write: () => T): Promise<T>;
  /** Commits what is staged now, synchronously. Never throws: failures go to the stagers' promises. */
  flush(): void;
  /** Writes staged and not yet committed. */
  readonly staged: number;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

interface Staged {
  write: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export function createWriteBatch(db: SqliteDatabase): WriteBatch {
  let items: Staged[] = [];
  let scheduled = false;

  /**
   * The batch in one transaction, each write plainly: the common case. When a write
   * throws, the whole transaction is rolled back and the batch runs again with each
   * write in its own savepoint (`isolated`), so only the failing write fails.
   */
  const plain = db.transaction((batch: Staged[], outcomes: Outcome[]) => {
    for (const item of batch) outcomes.push({ ok: true, value: item.write() });
  });
  /** One write in its savepoint (a nested better-sqlite3 transaction). Transactions built once, not per batch. */
  const inSavepoint = db.transaction((write: () => unknown) => write());
  const isolated = db.transaction((batch: Staged[], outcomes: Outcome[]) => {
    for (const item of batch) {
      try {
        outcomes.push({ ok: true, value: inSavepoint(item.write) });
      } catch (error) {
        // SQLite rolls the whole transaction back on some errors (SQLITE_FULL, SQLITE_IOERR …):
        // then nothing of the batch is stored, and every write of it fails with that error.
        if (!db.inTransaction) throw error;
        outcomes.push({ ok: false, error });
      }
    }
  });

  const flush = (): void => {
    if (items.length === 0) return;
    const batch = items;
    items = [];
    let outcomes: Outcome[] = [];
    try {
      if (!db.open) throw new Error("the plugin database is closed");
      try {
        plain(batch, outcomes);
      } catch {
        outcomes = [];
        isolated(batch, outcomes);
      }
    } catch (error) {
      for (const item of batch) item.reject(error);
      return;
    }
    batch.forEach((item, i) => {
      const o = outcomes[i]!;
      if (o.ok) item.resolve(o.value);
      else item.reject(o.error);
    });
  };

  return {
    stage<T>(write: () => T): Promise<T> {
      return new Promise<T>((resolve, reject) => {
        items.push({ write, resolve: resolve as (v: unknown) => void, reject });
        if (!scheduled) {
          scheduled = true;
          // After the turn's I/O callbacks: every request parsed in this turn joins the transaction.
          setImmediate(() => {
            scheduled = false;
            flush();
          });
        }
      });
    },
    flush,
    get staged() {
      return items.length;
    },
  };
}
