/**
 * Retries of the run queue (SPEC §7 storage faults): final states of finished runs that
 * could not be stored are stored again (else the row stays `running`, and a restart
 * recovers a finished run as interrupted — or runs it again with `retryInterrupted`),
 * summaries that could not be posted are kept and posted again, and runs whose start
 * could not be recorded are started again, every `delayMs` while the queue is started,
 * until the storage works.
 */
import type { ModuleLogger } from "../core/logger";
import type { RunExecutor, RunStore } from "../core/runs";
import { errorCode } from "../core/storage-fault";
import type { Unreported } from "./recovery";

export interface SummaryRetryOptions {
  executor: Pick<RunExecutor, "repostSummary">;
  logger: ModuleLogger;
  /** Applies a state change; false when it could not be stored. */
  persist(id: string, patch: Parameters<RunStore["update"]>[1], transition: string): boolean;
  delayMs: number;
  /** True while the queue is started (no retry otherwise). */
  isStarted(): boolean;
  /** Runs after each retry round (the queue's pump: runs not started are tried again). */
  afterRetry(): void;
}

type RunPatch = Parameters<RunStore["update"]>[1];

export interface SummaryRetry {
  /** Summaries that could not be posted, by run id. */
  readonly unreported: Map<string, Unreported>;
  /** State changes of finished runs not stored yet, by run id: the queue's next write of the run carries them. */
  readonly unrecorded: Map<string, { patch: RunPatch; transition: string }>;
  /** Keeps a state change that could not be stored (merged with what is unstoredChange already) and schedules a round. */
  owe(id: string, patch: RunPatch, transition: string): void;
  /** Schedules a retry round in `delayMs` (once). */
  schedule(): void;
  /** Posts a recorded summary (with the run's dedupe key) and clears its pending flag; false when it could not be posted. */
  repost(run: Unreported): Promise<boolean>;
  /** Cancels the scheduled round (stop). */
  cancel(): void;
}

export function createSummaryRetry(opts: SummaryRetryOptions): SummaryRetry {
  const { logger } = opts;
  const unreported = new Map<string, Unreported>();
  const unrecorded = new Map<string, { patch: RunPatch; transition: string }>();
  let timer: NodeJS.Timeout | undefined;

  async function repost(run: Unreported): Promise<boolean> {
    try {
      await opts.executor.repostSummary(run);
    } catch (e) {
      logger.error("run summary could not be posted; kept pending and retried", {
        runId: run.id,
        code: "summary_failed",
        cause: errorCode(e) ?? "unknown",
        error: e instanceof Error ? e.message : String(e),
      });
      return false;
    }
    opts.persist(run.id, { summaryPending: false }, "summary posted");
    return true;
  }

  async function retryUnreported(): Promise<void> {
    // The final states first: a summary marked posted must not leave its run's row behind it.
    for (const [id, unstoredChange] of [...unrecorded]) {
      if (!opts.isStarted()) return;
      opts.persist(id, {}, unstoredChange.transition);
    }
    for (const [id, run] of [...unreported]) {
      if (!opts.isStarted()) return;
      if (await repost(run)) unreported.delete(id);
    }
    if (unreported.size > 0 || unrecorded.size > 0) schedule();
  }

  function schedule(): void {
    if (timer || !opts.isStarted()) return;
    timer = setTimeout(() => {
      timer = undefined;
      void retryUnreported().then(opts.afterRetry);
    }, opts.delayMs);
    timer.unref?.();
  }

  return {
    unreported,
    unrecorded,
    owe(id, patch, transition) {
      unrecorded.set(id, { patch: { ...unrecorded.get(id)?.patch, ...patch }, transition });
      schedule();
    },
    schedule,
    repost,
    cancel() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
