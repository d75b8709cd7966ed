/**
 * The delivery ledger (SPEC §11): one row per request that reached a hook route,
 * in the `deliveries` table of the plugin database.
 *
 * Recording never delays or fails the answer: `record()` only appends to a buffer
 * (called once the answer has been handed to the socket), and the rows of a short
 * window (25 ms) are written as one write of the database's group commit
 * (`database.batch`, write-batch.ts): the transaction of the turn that also stores the
 * runs and idempotency records of the requests parsed in it — under load, no commit of
 * its own. A failed write (a dropped or damaged table) fails alone: the batch's other writes are kept, the
 * failure is logged — the error only, never a header or a body — and these rows are
 * dropped: the ledger is diagnostic, runs are not.
 *
 * A request refused before authentication (`refused`: 401, 429, a bad signature) is
 * kept without its body and with bounded headers, and a throttled client's repeated
 * 429s count in one row (ledger-refused.ts). Pruning by age (`retentionDays`) and count
 * (`maxEntries`, refused rows in their own share and evicted first, ledger-prune.ts) goes
 * in steps of bounded cost (PRUNE_STEP_BYTES of bodies to take out of the search index,
 * PRUNE_STEP_ROWS rows): once a write that passed a limit committed (the counts are kept in
 * memory), the steps run one per turn of the event loop (setImmediate), each in its own
 * transaction, until no limit is passed — also from an unref'd timer, against the injected
 * clock. No step runs in the write itself (it shares the turn's commit with the runs
 * accepted in it), and no turn holds the loop for a prune of every row past retention.
 *
 * Nor is a row indexed for search in that write: that comes later, in bounded steps
 * (ledger-index.ts); a search first indexes what is still waiting.
 *
 * @example
 *   const ledger = createLedgerStore(database, { logger, ...config.ledger });
 *   ledger.record(entry); // written on the next turn
 */
import type { PluginDatabase } from "./database";
import type { ModuleLogger } from "../core/logger";
import type { DeliverySummary } from "../core/inspection";
import { createLedgerIndexer, indexInBackground } from "./ledger-index";
import { ensureLedgerTable } from "./ledger-table";
import { createLedgerPruner, refusedShare, type LedgerCounts } from "./ledger-prune";
import { createRefusalFolder, refusedEntry } from "./ledger-refused";
import {
  createLedgerReader,
  entrySummary,
  INSERT_COLUMNS,
  toRow,
  type LedgerEntry,
  type LedgerListQuery,
  type LedgerReader,
  type StoredDelivery,
} from "./ledger-rows";

export type { LedgerEntry, LedgerListQuery, StoredDelivery } from "./ledger-rows";

export interface LedgerStoreOptions {
  logger: ModuleLogger;
  /** `hooks.ledger.storeBodies`: false keeps neither body, headers nor answer. */
  storeBodies: boolean;
  retentionDays: number;
  maxEntries: number;
  /** ms since the epoch; default Date.now. */
  clock?: () => number;
  /** Background pruning period; default 60 s. */
  pruneIntervalMs?: number;
  /** How long rows wait in the buffer before they join a group commit; default 25 ms. */
  flushWindowMs?: number;
}

export interface LedgerStore {
  /** Buffers one row; written with the turn's group commit. Never throws. */
  record(entry: LedgerEntry): void;
  /** Commits the group commit now (subscribers hear of the rows just after). Never throws: a failure is logged and the rows dropped. */
  flush(): void;
  /** Deletes rows older than the retention and beyond `maxEntries` now, step after step (tests, tools); returns how many. */
  prune(): number;
  /** Indexes every row not yet in the search index now, step after step (tests, tools); returns how many. Throws what SQLite threw. */
  index(): number;
  /** Newest first; undefined when `before` names no delivery. A search first indexes the rows not yet indexed (at most SEARCH_CATCH_UP_STEPS steps). Throws when the table cannot be read. */
  list(query: LedgerListQuery): DeliverySummary[] | undefined;
  get(id: string): StoredDelivery | undefined;
  /** The delivery that started a run, when the ledger knows it. */
  deliveryOfRun(runId: string): string | undefined;
  count(): number;
  /** ms since the epoch of the newest row. */
  lastReceivedAt(): number | undefined;
  /**
   * Called with each row once it is written; returns the unsubscribe function.
   * `active`, when given, is asked per write: while it answers false the summary is
   * not even built (a feed nobody watches costs nothing on the hot path).
   */
  subscribe(listener: (delivery: DeliverySummary) => void, active?: () => boolean): () => void;
  /** Flushes and stops the timer (the database is closed by its owner). */
  close(): void;
}

const COLUMNS = `seq, ${INSERT_COLUMNS}`;

export function createLedgerStore(database: PluginDatabase, options: LedgerStoreOptions): LedgerStore {
  const { db } = database;
  const { logger, storeBodies } = options;
  const clock = options.clock ?? Date.now;
  // A missing or damaged table is created again, a missing or damaged search index built again (ledger-table.ts).
  ensureLedgerTable(db, database.file, COLUMNS.split(", "), logger);
  const reader: LedgerReader = createLedgerReader(db);

  const insert = db.prepare(
    `INSERT INTO deliveries (${INSERT_COLUMNS}) VALUES (${INSERT_COLUMNS.split(",")
      .map(() => "?")
      .join(", ")})`,
  );
  // The search index, written after the turn that committed the rows, in steps of its own (ledger-index.ts).
  const indexer = createLedgerIndexer(db);
  const background = indexInBackground(indexer, { logger, usable: () => db.open && !closed });
  const pruner = createLedgerPruner(db, {
    retentionDays: options.retentionDays,
    maxEntries: options.maxEntries,
    clock,
    indexedThrough: () => indexer.indexedThrough,
  });
  const folder = createRefusalFolder(db, refusedShare(options.maxEntries));
  /**
   * What pruning needs, kept in memory so that a write prunes only when it passed a
   * limit. Updated only once a write committed (a batch may run its writes twice).
   */
  let counts: LedgerCounts = pruner.read();
  /** One prune step from the table as it is, rows and index entries in one transaction of its own. */
  const pruneStep = db.transaction(() => pruner.prune(pruner.read()));
  const step = (): { removed: number; more: boolean } => {
    const r = pruneStep();
    counts = r.counts;
    return r;
  };
  /** Every step now, one after the other (`prune()`). */
  const pruneNow = (): number => {
    let removed = 0;
    for (let r = step(); ; r = step()) {
      removed += r.removed;
      if (!r.more || r.removed === 0) return removed;
    }
  };
  let pruning = false;
  /** The steps left, one per turn of the event loop, until no limit is passed (a write that passed one, the timer, a failed write). */
  const pruneInBackground = (): void => {
    if (pruning || closed) return;
    pruning = true;
    const next = (): void => {
      try {
        const r = db.open && !closed ? step() : { removed: 0, more: false };
        if (r.more && r.removed > 0) return void setImmediate(next);
      } catch (e) {
        logger.warn("delivery ledger pruning failed", { error: (e as Error).message, code: (e as { code?: string }).code });
      }
      pruning = false;
    };
    setImmediate(next);
  };
  /** Each subscriber and what says whether it listens now. */
  const listeners = new Map<(d: DeliverySummary) => void, () => boolean>();
  const always = () => true;
  let buffer: LedgerEntry[] = [];
  let scheduled = false;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const windowMs = options.flushWindowMs ?? 25;

  /** Writes the rows (a refused 429 of a throttled client may only count in its open row); returns the rows to announce and the counts after. */
  const writeRows = (batch: LedgerEntry[]): { written: LedgerEntry[]; counts: LedgerCounts } => {
    const after = { ...counts };
    const written: LedgerEntry[] = [];
    let last = 0;
    for (const entry of batch) {
      if (folder.fold(entry)) continue;
      const e = entry.refused ? refusedEntry(entry) : entry;
      const seq = Number(insert.run(...toRow(e, storeBodies)).lastInsertRowid);
      last = seq;
      folder.opened(e, seq);
      written.push(e);
      after.rows++;
      if (e.refused) after.refused++;
      if (after.oldest === undefined || e.receivedAt < after.oldest) after.oldest = e.receivedAt;
    }
    // Told before the commit (a search right after a flush, in the same turn, indexes these rows first); a rolled-back write
    // only makes the next step find nothing.
    if (last > 0) indexer.wrote(last);
    // No index entry and no prune step here: this write shares the turn's commit with the runs accepted in it (issue 36: nothing a
    // sender prices on the accept turn). The rows are indexed, and a limit passed pruned, from a later turn on, a step per turn.
    return { written, counts: after };
  };

  function notify(batch: LedgerEntry[]): void {
    const wanted = [...listeners].flatMap(([l, active]) => (active() ? [l] : []));
    if (wanted.length === 0) return;
    for (const e of batch) {
      const summary = entrySummary(e);
      for (const l of wanted) {
        try {
          l(summary);
        } catch (err) {
          logger.warn("a delivery ledger subscriber failed", { error: (err as Error).message });
        }
      }
    }
  }

  const failed = (e: unknown, dropped: number): void => {
    // The error only: never a header, a body or a URL (they may hold what the sender sent).
    logger.error("delivery ledger write failed; these deliveries are not recorded (the senders' answers were not affected)", {
      dropped,
      error: (e as Error).message,
      code: (e as { code?: string }).code,
    });
  };

  /**
   * Stages one write that takes the whole buffer when the group commit runs it. The
   * rows are taken once: when the batch is run again write by write (another write
   * failed), the same rows are written.
   */
  function stageBuffer(): void {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    let taken: LedgerEntry[] | undefined;
    const take = (): LedgerEntry[] => {
      if (!taken) {
        taken = buffer;
        buffer = [];
        scheduled = false;
      }
      return taken;
    };
    database.batch
      .stage(() => writeRows(take()))
      .then(
        (result) => {
          counts = result.counts;
          background.afterWrite();
          if (pruner.needed(counts)) pruneInBackground();
          notify(result.written);
        },
        // A batch that failed before this write ran still takes (and drops) the rows, so recording goes on.
        (e: unknown) => {
          failed(e, take().length);
          // The in-memory counts may be off after a failed write: the steps read them again.
          pruneInBackground();
        },
      );
  }

  function flush(): void {
    if (scheduled) stageBuffer();
    if (db.open) database.batch.flush();
  }

  const pruneTimer = setInterval(() => {
    pruneInBackground();
    // Rows left above the watermark by a failed step (a full disk) are tried again.
    background.soon();
  }, options.pruneIntervalMs ?? 60_000);
  pruneTimer.unref();
  // Rows stored and not indexed before a stop or a crash: indexed from the next turn on, never in the start itself.
  background.soon();

  return {
    record(entry) {
      if (closed) return;
      buffer.push(entry);
      if (scheduled) return;
      scheduled = true;
      // Rows of a short window share one write (and, under load, the commit of the runs accepted meanwhile).
      timer = setTimeout(stageBuffer, windowMs);
      timer.unref();
    },
    flush,
    prune() {
      return pruneNow();
    },
    list(q) {
      if (q.search !== undefined) background.catchUp();
      return reader.list(q);
    },
    index: () => indexer.all(),
    get: (id) => reader.get(id),
    deliveryOfRun: (runId) => reader.deliveryOfRun(runId),
    count: () => reader.count(),
    lastReceivedAt: () => reader.lastReceivedAt(),
    subscribe(listener, active) {
      listeners.set(listener, active ?? always);
      return () => listeners.delete(listener);
    },
    close() {
      if (closed) return;
      flush();
      closed = true;
      clearInterval(pruneTimer);
      background.stop();
      listeners.clear();
    },
  };
}
