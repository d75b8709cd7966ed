/**
 * Pruning of the delivery ledger (SPEC §11, §7 "Bounded disk"):
 *   - by age: rows received more than `retentionDays` ago (a counted row of repeated
 *     refusals is as old as its first request);
 *   - refused rows (answered before authentication: 401, 429, a bad signature) are kept
 *     to their share of `maxEntries` (REFUSED_SHARE), the oldest going first;
 *   - over `maxEntries` in all, refused rows go first: an authenticated delivery is only
 *     ever evicted by newer authenticated ones, so a flood with no credentials cannot push
 *     one out.
 * The counts are kept in memory (by the ledger store) so that a write prunes only when
 * it passed a limit.
 *
 * @example
 *   const pruner = createLedgerPruner(db, { retentionDays: 7, maxEntries: 10_000, clock: Date.now });
 *   let counts = pruner.read();
 *   if (pruner.needed(counts)) counts = pruner.prune(counts).counts;
 */
import type { SqliteDatabase } from "./sqlite-types";
import { searchIndexDelete } from "./migrations";

/** The share of `maxEntries` that refused-before-authentication rows may hold. */
export const REFUSED_SHARE = 0.1;

const DAY_MS = 86_400_000;

/** How many refused rows the ledger keeps at most. */
export function refusedShare(maxEntries: number): number {
  return Math.max(1, Math.floor(maxEntries * REFUSED_SHARE));
}

export interface LedgerCounts {
  rows: number;
  refused: number;
  /** ms since the epoch of the oldest row. */
  oldest: number | undefined;
}

export interface LedgerPruner {
  /** The counts as the table has them. */
  read(): LedgerCounts;
  /** True when `counts` pass a limit. */
  needed(counts: LedgerCounts): boolean;
  /** Prunes a table holding `counts`; returns how many rows went and the counts left. */
  prune(counts: LedgerCounts): { removed: number; counts: LedgerCounts };
}

/**
 * Deletes the rows `select` (one parameter) finds and their search index entries, in the
 * caller's transaction; `run()` answers how many rows went.
 */
function deleting(db: SqliteDatabase, select: string): { run(limit: number): { changes: number } } {
  const unindex = db.prepare<[number]>(searchIndexDelete(select));
  const remove = db.prepare<[number]>(`DELETE FROM deliveries WHERE seq IN (${select})`);
  return {
    run(limit) {
      unindex.run(limit);
      return remove.run(limit);
    },
  };
}

export function createLedgerPruner(db: SqliteDatabase, opts: { retentionDays: number; maxEntries: number; clock: () => number }): LedgerPruner {
  const share = refusedShare(opts.maxEntries);
  const countAll = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries");
  const countRefused = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE refused = 1");
  const oldestStmt = db.prepare<[], { t: number | null }>("SELECT MIN(received_at) AS t FROM deliveries");
  // Each selection of rows deletes their search index entries first, then the rows (migrations 6 and 7: no trigger does it).
  const pruneAge = deleting(db, "SELECT seq FROM deliveries WHERE received_at < ?");
  // The oldest rows beyond a limit: walks only those rows (from the low end of the key).
  const pruneOldest = deleting(db, "SELECT seq FROM deliveries ORDER BY seq ASC LIMIT ?");
  const pruneOldestRefused = deleting(db, "SELECT seq FROM deliveries WHERE refused = 1 ORDER BY seq ASC LIMIT ?");
  const cutoff = (): number => opts.clock() - opts.retentionDays * DAY_MS;
  const read = (): LedgerCounts => ({ rows: countAll.get()?.n ?? 0, refused: countRefused.get()?.n ?? 0, oldest: oldestStmt.get()?.t ?? undefined });

  return {
    read,
    needed: (c) => c.rows > opts.maxEntries || c.refused > share || (c.oldest !== undefined && c.oldest < cutoff()),
    prune(c) {
      const byAge = pruneAge.run(cutoff()).changes;
      let { rows, refused } = byAge > 0 ? read() : c;
      // Refused rows beyond their share, then beyond maxEntries in all: theirs is the first eviction.
      const overShare = Math.max(0, refused - share);
      const overAll = Math.max(0, rows - overShare - opts.maxEntries);
      const byRefused = overShare + overAll > 0 ? pruneOldestRefused.run(Math.min(refused, overShare + overAll)).changes : 0;
      rows -= byRefused;
      refused -= byRefused;
      // Still over: authenticated rows alone pass maxEntries (there are no refused rows left).
      const excess = rows - opts.maxEntries;
      const byCount = excess > 0 ? pruneOldest.run(excess).changes : 0;
      rows -= byCount;
      return { removed: byAge + byRefused + byCount, counts: { rows, refused, oldest: oldestStmt.get()?.t ?? undefined } };
    },
  };
}
