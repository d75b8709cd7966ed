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
 * A prune is a **step** of bounded cost (SPEC §14): taking a row out of the search index
 * re-tokenizes its body's first 64 KiB (FTS5's 'delete' command: most of a step's cost, about
 * 0.5 ms per body of 64 KiB on a quiet machine), so one step deletes rows whose bodies (as much
 * as the index reads of each) add up to at most PRUNE_STEP_BYTES (4 bodies of 64 KiB), and at
 * most PRUNE_STEP_ROWS rows; `more` says whether a limit is still passed. The ledger store runs
 * the steps one per turn of the event loop, never in a write (before: one statement over every
 * row past retention — 2,000 rows of 64 KiB held `/healthz` 4 s, the default 10,000 about
 * 20 s; then steps of 1 MiB and 500 rows, one of them in the write: 16 bodies re-tokenized in
 * the commit of the runs accepted in that turn).
 *
 * @example
 *   const pruner = createLedgerPruner(db, { retentionDays: 7, maxEntries: 10_000, clock: Date.now, indexedThrough: () => indexer.indexedThrough });
 *   let counts = pruner.read();
 *   while (pruner.needed(counts)) counts = pruner.prune(counts).counts; // a step per turn, in the store
 */
import type { SqliteDatabase } from "./sqlite-types";
import { SEARCH_BODY_CHARS, searchIndexDelete } from "./migrations";

/** The share of `maxEntries` that refused-before-authentication rows may hold. */
export const REFUSED_SHARE = 0.1;

export const DAY_MS = 86_400_000;

/** At most this many rows in one prune step… */
export const PRUNE_STEP_ROWS = 100;
/** …and bodies (as much as the index reads of each, plus PRUNE_ROW_BYTES a row) adding up to at most this many bytes (4 bodies of 64 KiB). */
export const PRUNE_STEP_BYTES = 256 * 1024;
/** What a row counts in a step besides its body (its other columns, its index entries). */
export const PRUNE_ROW_BYTES = 256;

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
  /**
   * One step over a table holding `counts`, in the caller's transaction: deletes at most
   * PRUNE_STEP_ROWS rows of at most PRUNE_STEP_BYTES, the ones past the age first; returns
   * how many went, the counts left and whether a limit is still passed (`more`).
   */
  prune(counts: LedgerCounts): { removed: number; counts: LedgerCounts; more: boolean };
}

/** A row's cost in a step: as many bytes of its body as the index reads again (SEARCH_BODY_CHARS), plus PRUNE_ROW_BYTES. length() of a BLOB reads no body. */
const COST = `MIN(COALESCE(length(body), 0), ${SEARCH_BODY_CHARS}) + ${PRUNE_ROW_BYTES}`;

/** Up to this many rows always fit in a step, whatever their bodies: selected without adding up their costs. */
export const PRUNE_STEP_ANY_ROWS = Math.floor(PRUNE_STEP_BYTES / (SEARCH_BODY_CHARS + PRUNE_ROW_BYTES));

/**
 * Deletes, in the caller's transaction, the first rows (in `order`, by `where`: its
 * parameter, if any, comes first) that fit in one step — at most `limit` (≤ PRUNE_STEP_ROWS)
 * and while their costs add up to at most PRUNE_STEP_BYTES (the first row always) — with
 * their search index entries first (those it holds: up to its watermark). The statement walks only those rows, from the low end of
 * an index. `run()` answers how many rows went.
 */
function deleting(db: SqliteDatabase, where: string, order: string, indexedThrough: () => number): { run(args: number[]): number } {
  const key = order === "seq" ? "seq" : `${order}, seq`;
  const first = (columns: string) => `SELECT ${columns} FROM deliveries${where ? ` WHERE ${where}` : ""} ORDER BY ${key} LIMIT ?`;
  const running = `SELECT seq, cost, SUM(cost) OVER (ORDER BY ${key} ROWS UNBOUNDED PRECEDING) AS upto FROM (${first(`seq, ${order === "seq" ? "" : `${order}, `}${COST} AS cost`)})`;
  const statements = (select: string) => ({
    unindex: db.prepare<number[]>(searchIndexDelete(select)),
    remove: db.prepare<number[]>(`DELETE FROM deliveries WHERE seq IN (${select})`),
  });
  // A few rows (a write's own step, most often) need no sum: they fit whatever they hold.
  const few = statements(first("seq"));
  const many = statements(`SELECT seq FROM (${running}) WHERE upto - cost < ${PRUNE_STEP_BYTES}`);
  return {
    run(args) {
      const s = args.at(-1)! <= PRUNE_STEP_ANY_ROWS ? few : many;
      // Only the rows the index holds are taken out of it (up to its watermark): a row stored and not yet indexed has no entry.
      s.unindex.run(...args, indexedThrough());
      return s.remove.run(...args).changes;
    },
  };
}

export function createLedgerPruner(
  db: SqliteDatabase,
  opts: { retentionDays: number; maxEntries: number; clock: () => number; /** The search index's watermark (ledger-index.ts). */ indexedThrough: () => number },
): LedgerPruner {
  const share = refusedShare(opts.maxEntries);
  const countAll = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries");
  const countRefused = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries WHERE refused = 1");
  const oldestStmt = db.prepare<[], { t: number | null }>("SELECT MIN(received_at) AS t FROM deliveries");
  // A step deletes one kind of row: past the age, refused beyond their share (or beyond maxEntries), the oldest beyond maxEntries.
  const pruneAge = deleting(db, "received_at < ?", "received_at", opts.indexedThrough);
  const pruneOldestRefused = deleting(db, "refused = 1", "seq", opts.indexedThrough);
  const pruneOldest = deleting(db, "", "seq", opts.indexedThrough);
  const cutoff = (): number => opts.clock() - opts.retentionDays * DAY_MS;
  const read = (): LedgerCounts => ({ rows: countAll.get()?.n ?? 0, refused: countRefused.get()?.n ?? 0, oldest: oldestStmt.get()?.t ?? undefined });
  const needed = (c: LedgerCounts): boolean => c.rows > opts.maxEntries || c.refused > share || (c.oldest !== undefined && c.oldest < cutoff());

  return {
    read,
    needed,
    prune(c) {
      const cut = cutoff();
      // Refused rows beyond their share, then beyond maxEntries in all: theirs is the first eviction.
      const overShare = Math.max(0, c.refused - share);
      const refusedOver = Math.min(c.refused, overShare + Math.max(0, c.rows - overShare - opts.maxEntries), PRUNE_STEP_ROWS);
      // Then authenticated rows alone beyond maxEntries (no refused rows are left to go).
      const excess = Math.min(c.rows - opts.maxEntries, PRUNE_STEP_ROWS);
      let removed = 0;
      let counts: LedgerCounts;
      if (c.oldest !== undefined && c.oldest < cut) {
        removed = pruneAge.run([cut, PRUNE_STEP_ROWS]);
        counts = read();
      } else if (refusedOver > 0) {
        removed = pruneOldestRefused.run([refusedOver]);
        counts = { rows: c.rows - removed, refused: c.refused - removed, oldest: oldestStmt.get()?.t ?? undefined };
      } else if (excess > 0) {
        removed = pruneOldest.run([excess]);
        counts = { rows: c.rows - removed, refused: c.refused, oldest: oldestStmt.get()?.t ?? undefined };
      } else counts = c;
      // Counts kept in memory that were off (nothing went): the table's own, so the next step deletes what is there.
      if (removed === 0) counts = read();
      return { removed, counts, more: needed(counts) };
    },
  };
}
