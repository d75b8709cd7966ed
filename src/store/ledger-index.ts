/**
 * The ledger's search index written after the accept turn (SPEC §14, issue 36: nothing whose
 * cost the sender sets runs on the accept turn). A delivery's row is committed with the
 * turn's group commit; its index entry (`deliveries_fts`, migration 10) is written later, in
 * **steps** of bounded cost, each in a transaction of its own: at most INDEX_STEP_ROWS rows
 * whose bodies (as much as the index reads of each, plus PRUNE_ROW_BYTES a row) add up to at
 * most INDEX_STEP_BYTES (the first row always).
 *
 * What is indexed is kept as a **watermark**: every row with `seq` up to `indexedThrough` is
 * in the index, none above it. Rows are indexed in `seq` order and pruning takes a row out of
 * the index only when it is at or below the watermark (FTS5's 'delete' of a row never indexed
 * would corrupt a contentless index: migration 7), so the watermark is read back from the
 * index itself at start — its highest rowid — and needs no column or table of its own: a
 * crash or a full disk between a row's commit and its step leaves the row stored and above
 * the watermark, indexed by a later step (at the next start, on a later turn: never in the
 * start itself). A step that fails (a full disk) changes nothing and is tried again later.
 *
 * @example
 *   const indexer = createLedgerIndexer(db);
 *   while (indexer.step().more); // the ledger store runs a step per turn
 */
import type { SqliteDatabase } from "./sqlite-types";
import type { ModuleLogger } from "../core/logger";
import { SEARCH_BODY_CHARS, SEARCH_INDEX_INSERT } from "./migrations";
import { PRUNE_ROW_BYTES } from "./ledger-prune";

/** At most this many rows in one index step… */
export const INDEX_STEP_ROWS = 500;
/** …and bodies (as much as the index reads of each, plus PRUNE_ROW_BYTES a row) adding up to at most this many bytes (4 bodies of 64 KiB). */
export const INDEX_STEP_BYTES = 256 * 1024;

export interface LedgerIndexer {
  /** The highest `seq` in the index: every row up to it is indexed, none above it. */
  readonly indexedThrough: number;
  /** Indexes the next rows above the watermark (one step, in a transaction of its own); `more` when rows are left. Throws what SQLite threw (nothing changed). */
  step(): { indexed: number; more: boolean };
  /** Every step now, one after the other (tests, tools); returns how many rows were indexed. */
  all(): number;
  /** True when a row above the watermark may be stored (as of the last write the store told of, or the start). */
  readonly pending: boolean;
  /** A row up to `seq` was written (the store's write; its commit may yet fail: the next step then finds nothing). */
  wrote(seq: number): void;
}

export function createLedgerIndexer(db: SqliteDatabase): LedgerIndexer {
  const highest = db.prepare<[], { rowid: number }>("SELECT rowid FROM deliveries_fts ORDER BY rowid DESC LIMIT 1");
  const newest = db.prepare<[], { seq: number | null }>("SELECT MAX(seq) AS seq FROM deliveries");
  // length() of a BLOB reads no body.
  const next = db.prepare<[number, number], { seq: number; cost: number }>(
    `SELECT seq, MIN(COALESCE(length(body), 0), ${SEARCH_BODY_CHARS}) + ${PRUNE_ROW_BYTES} AS cost FROM deliveries WHERE seq > ? ORDER BY seq LIMIT ?`,
  );
  const insert = db.prepare<[number, number]>(SEARCH_INDEX_INSERT);
  let indexedThrough = highest.get()?.rowid ?? 0;
  let written = newest.get()?.seq ?? 0;

  const run = db.transaction((): { indexed: number; upTo: number; left: boolean } => {
    const rows = next.all(indexedThrough, INDEX_STEP_ROWS);
    let bytes = 0;
    let upTo = indexedThrough;
    let indexed = 0;
    for (const r of rows) {
      if (indexed > 0 && bytes + r.cost > INDEX_STEP_BYTES) break;
      bytes += r.cost;
      upTo = r.seq;
      indexed++;
    }
    if (indexed > 0) insert.run(indexedThrough, upTo);
    return { indexed, upTo, left: indexed < rows.length || rows.length === INDEX_STEP_ROWS };
  });

  return {
    get indexedThrough() {
      return indexedThrough;
    },
    get pending() {
      return written > indexedThrough;
    },
    wrote(seq) {
      if (seq > written) written = seq;
    },
    all() {
      let indexed = 0;
      for (let r = this.step(); ; r = this.step()) {
        indexed += r.indexed;
        if (!r.more || r.indexed === 0) return indexed;
      }
    },
    step() {
      const r = run();
      // Moved only once the step committed: a step rolled back (a full disk) is taken again from the same row.
      indexedThrough = r.upTo;
      // Nothing above the watermark (the rows above it were pruned before their step): none pending.
      if (r.indexed === 0) written = indexedThrough;
      if (indexedThrough > written) written = indexedThrough;
      return { indexed: r.indexed, more: r.left || written > indexedThrough };
    },
  };
}

/** How long after a write committed its rows wait for their index step (the rows of the turns meanwhile join it). */
export const INDEX_AFTER_MS = 50;
/**
 * At most this many index steps before a search (INDEX_STEP_BYTES each: 1 MiB of bodies, 2,000 small rows; about
 * 15 ms): a backlog beyond them is found once indexed. 16 steps (4 MiB) held a search behind 10,000 fresh rows of
 * 64 KiB 63 ms (bench "stored state").
 */
export const SEARCH_CATCH_UP_STEPS = 4;

export interface IndexInBackground {
  /** A write committed: its rows' steps from INDEX_AFTER_MS on (the rows of the turns meanwhile join them). */
  afterWrite(): void;
  /** The steps from the next turn on (at start, from the timer after a failed step). */
  soon(): void;
  /** Before a search: the rows still above the watermark, at most SEARCH_CATCH_UP_STEPS steps now (a search finds what was just answered). */
  catchUp(): void;
  stop(): void;
}

/** Runs `indexer`'s steps one per turn of the event loop until no row is left above the watermark; a failed step (a full disk) is logged and waits for the next write or `soon()`. */
export function indexInBackground(indexer: LedgerIndexer, opts: { logger: ModuleLogger; usable: () => boolean }): IndexInBackground {
  let timer: NodeJS.Timeout | undefined;
  let indexing = false;
  let stopped = false;
  const failed = (e: unknown): void => {
    opts.logger.warn("indexing the delivery ledger for search failed; the rows are kept and indexed later", {
      error: (e as Error).message,
      code: (e as { code?: string }).code,
    });
  };
  const steps = (): void => {
    try {
      if (!stopped && opts.usable() && indexer.step().more) return void setImmediate(steps);
    } catch (e) {
      failed(e);
    }
    indexing = false;
  };
  const soon = (): void => {
    if (indexing || stopped || !indexer.pending) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    indexing = true;
    setImmediate(steps);
  };
  return {
    afterWrite() {
      if (indexing || stopped || timer !== undefined || !indexer.pending) return;
      timer = setTimeout(() => {
        timer = undefined;
        soon();
      }, INDEX_AFTER_MS);
      timer.unref();
    },
    soon,
    catchUp() {
      try {
        for (let i = 0; i < SEARCH_CATCH_UP_STEPS && indexer.pending && opts.usable(); i++) if (!indexer.step().more) break;
      } catch (e) {
        failed(e);
      }
    },
    stop() {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}
