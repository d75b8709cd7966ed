/**
 * The delivery ledger's write side over the Postgres store (SPEC §11 "recording never
 * delays or fails the answer", §16 "nothing half-written"): each answered request's row
 * joins a later turn's statement of the group commit (pg-accept.ts) — after the answer,
 * so after the commit of the run it names.
 *
 * Postgres stopped between the two (a restart under load) would leave that run without
 * its ledger row. So a row whose statement failed because Postgres is unavailable
 * (pg-errors.ts) is kept in memory and written again every `retryMs` until Postgres
 * answers; an outage is logged once when it starts and once when the rows are written.
 * A row whose statement in doubt did commit is not written twice (the statement skips a
 * ledger id already stored). What waits is bounded (`maxPending` rows, `maxPendingBytes`
 * of bodies): past it, rows naming no run (the 503s of the outage itself) are dropped
 * first, counted in the log. A row refused for another reason is logged and dropped, as
 * before; `stop()` writes what waits one last time.
 *
 * @example
 *   const writer = createPgLedgerWriter({ accept: store.accept, logger });
 *   writer.record(entry); // written on a later turn, again after an outage
 *   await writer.stop(); // before store.close()
 */
import type { ModuleLogger } from "../../core/logger";
import type { LedgerEntry } from "../ledger-rows";
import type { PgAcceptBatch } from "./pg-accept";
import { unavailableCause } from "./pg-errors";

export interface PgLedgerWriterOptions {
  accept: Pick<PgAcceptBatch, "stage" | "drain">;
  logger: ModuleLogger;
  /** How often rows kept through an outage are tried again. Default 1000. */
  retryMs?: number;
  /** Most rows kept through an outage. Default 1000. */
  maxPending?: number;
  /** Most bytes of bodies kept through an outage. Default 16 MiB. */
  maxPendingBytes?: number;
}

export interface PgLedgerWriter {
  record(entry: LedgerEntry): void;
  /** Rows waiting for Postgres (tests, metrics). */
  pending(): number;
  /** Writes what waits one last time and waits for it; later failures are logged, not kept. */
  stop(): Promise<void>;
}

/** What a kept row weighs: its body, plus a little for the rest. */
const keptBytes = (e: LedgerEntry): number => (e.body?.length ?? 0) + 512;

export function createPgLedgerWriter(options: PgLedgerWriterOptions): PgLedgerWriter {
  const { accept, logger } = options;
  const retryMs = options.retryMs ?? 1000;
  const maxPending = options.maxPending ?? 1000;
  const maxPendingBytes = options.maxPendingBytes ?? 16 * 1024 * 1024;
  let pending: LedgerEntry[] = [];
  let pendingBytes = 0;
  let retrying = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let lostAtStop = 0;
  let outage: { cause: string; dropped: number; written: number } | undefined;

  const failed = (e: unknown): void => {
    logger.error("delivery not recorded in the ledger", { error: (e as Error).message });
  };

  function write(entry: LedgerEntry, retried: boolean): void {
    if (retried) retrying++;
    accept.stage({ delivery: entry }).then(
      () => {
        if (!retried) return;
        retrying--;
        if (outage) outage.written++;
        settled();
      },
      (e: unknown) => {
        if (retried) retrying--;
        const cause = unavailableCause(e);
        if (cause === undefined) failed(e);
        else if (stopped) lostAtStop++;
        else keep(entry, cause);
        settled();
      },
    );
  }

  /** The outage is over once nothing waits and no retried row is in flight. */
  function settled(): void {
    if (!outage || pending.length > 0 || retrying > 0) return;
    logger.info("ledger rows kept while Postgres was unavailable are written", { written: outage.written, dropped: outage.dropped });
    outage = undefined;
  }

  function keep(entry: LedgerEntry, cause: string): void {
    if (!outage) {
      outage = { cause, dropped: 0, written: 0 };
      logger.warn("ledger rows not written: Postgres is unavailable; kept and written once it answers", { cause });
    }
    const over = (): boolean => pending.length > 0 && (pending.length >= maxPending || pendingBytes + keptBytes(entry) > maxPendingBytes);
    if (over()) {
      // Past the bound: a new row naming no run (a 503 of the outage itself) goes; one naming a run evicts those naming none, then the oldest.
      if (entry.runIds.length === 0) {
        outage.dropped++;
        return;
      }
      while (over()) {
        const i = pending.findIndex((p) => p.runIds.length === 0);
        const [gone] = pending.splice(i < 0 ? 0 : i, 1);
        pendingBytes -= keptBytes(gone!);
        outage.dropped++;
      }
    }
    pending.push(entry);
    pendingBytes += keptBytes(entry);
    if (!timer) {
      timer = setTimeout(retry, retryMs);
      timer.unref();
    }
  }

  function retry(): void {
    timer = undefined;
    const rows = pending;
    pending = [];
    pendingBytes = 0;
    for (const e of rows) write(e, true);
  }

  return {
    record: (entry) => write(entry, false),
    pending: () => pending.length,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      retry();
      await accept.drain().catch(() => undefined);
      if (lostAtStop > 0) logger.error("ledger rows not recorded: Postgres was unavailable when the gateway stopped", { rows: lostAtStop });
    },
  };
}
