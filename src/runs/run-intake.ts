/**
 * The run queue of a receiver (SPEC §16 "a receiver … stores deliveries and runs, and
 * answers — it runs no agent turns"): what the dispatcher needs of a queue — accept one
 * run, accept a fan-out's runs together — over a store that consumers on other machines
 * take the runs from. The same checks as the run queue (run-admission.ts): shutting down,
 * the main session's key, `hooks.runs.maxQueued` — here counted over the whole store (every
 * receiver's runs), read at most every `depthRefreshMs` and kept up to date with what this
 * receiver stored since, so a full backlog answers 503 `overloaded` with `Retry-After`
 * without a query per request.
 *
 * @example
 *   const queue = createRunIntake({ store, config: config.runs, mainKey, logger });
 *   const dispatcher = createDispatcher({ queue, ... });
 */
import { randomUUID } from "node:crypto";
import type { RunsConfig } from "../config/types";
import { err, ok, type Result } from "../core/errors";
import type { ModuleLogger } from "../core/logger";
import type { RunQueue, RunRecord } from "../core/runs";
import type { NewRun, ReceiverStore } from "../core/store-port";
import { isoAt, systemClock, type Clock } from "../core/clock";
import { notStored, refuseRuns } from "./run-admission";

export interface RunIntakeOptions {
  store: ReceiverStore;
  config: Pick<RunsConfig, "maxQueued">;
  /** The host's main session key: no hook run may use it. */
  mainKey: string;
  logger: ModuleLogger;
  isShuttingDown: () => boolean;
  /** How old the count of queued runs may be. Default 1000. */
  depthRefreshMs?: number;
  clock?: Clock;
  idGen?: () => string;
}

export type RunIntake = Pick<RunQueue, "accept" | "enqueueAll">;

/** `Retry-After` of an overloaded receiver: the consumers drain the backlog, not this process. */
const RETRY_AFTER_SECONDS = "30";

export function createRunIntake(options: RunIntakeOptions): RunIntake {
  const { store, logger } = options;
  const clock = options.clock ?? systemClock;
  const idGen = options.idGen ?? randomUUID;
  const refreshMs = options.depthRefreshMs ?? 1000;
  let depth = 0;
  let readAt = -Infinity;
  let reading: Promise<void> | undefined;

  /** The count of queued runs, read again when older than `refreshMs` (a failed read keeps the last one). */
  async function currentDepth(): Promise<number> {
    if (clock() - readAt >= refreshMs) {
      reading ??= store
        .countQueued()
        .then((n) => {
          depth = n;
          readAt = clock();
        })
        .catch(() => undefined)
        .finally(() => (reading = undefined));
      await reading;
    }
    return depth;
  }

  async function acceptAll(
    entries: ReadonlyArray<{ action: RunRecord["action"]; source: RunRecord["source"]; idempotencyKey?: string }>,
  ): Promise<Result<RunRecord[]>> {
    const refusal = refuseRuns(
      {
        stopping: options.isShuttingDown(),
        mainKey: options.mainKey,
        depth: await currentDepth(),
        maxQueued: options.config.maxQueued,
        retryAfter: RETRY_AFTER_SECONDS,
        logger,
      },
      entries,
    );
    if (refusal) return err(refusal);
    const runs: NewRun[] = entries.map(({ action, source, idempotencyKey }) => ({
      id: idGen(),
      status: "queued",
      action,
      source,
      createdAt: isoAt(clock),
      ...(idempotencyKey !== undefined ? { idempotencyKey } : {}),
    }));
    try {
      const stored = await store.storeRuns(runs);
      depth += stored.length;
      return ok(stored);
    } catch (e) {
      return err(notStored(logger, e, entries[0]!.source));
    }
  }

  return {
    async accept(action, source, opts = {}) {
      const r = await acceptAll([{ action, source, ...(opts.idempotencyKey !== undefined ? { idempotencyKey: opts.idempotencyKey } : {}) }]);
      return r.ok ? ok(r.value[0]!) : r;
    },
    enqueueAll: async (entries) => (entries.length === 0 ? ok([]) : acceptAll(entries)),
  };
}
