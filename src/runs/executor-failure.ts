/**
 * A run whose executor threw (it never should: `execute` catches what it can): recorded `failed` with the
 * reason, `run:finished` emitted, and its summary posted like any other (its dedupe key drops it if the
 * executor posted one before failing); a summary that cannot be posted is left for the queue's retry.
 */
import type { ModuleLogger } from "../core/logger";
import type { PluginEmitter } from "../core/events";
import type { RunOutcome, RunRecord } from "../core/runs";
import { failureSummary } from "./summary";
import { safeEmit } from "./safe-emit";

export interface ExecutorFailureDeps {
  logger: ModuleLogger;
  emitter: PluginEmitter;
  /** Records the run's terminal state (summary pending). */
  finish(run: RunRecord, outcome: RunOutcome): void;
  /** Posts the summary; false when it could not be posted. */
  repost(report: RunRecord & { summary: string }): Promise<boolean>;
  /** Summaries that could not be posted, to post again (after `scheduleRetry`). */
  unreported: Map<string, RunRecord & { summary: string }>;
  scheduleRetry(): void;
  /** True once the queue stopped (nothing is posted then). */
  closed(): boolean;
}

export async function recordExecutorFailure(run: RunRecord, e: unknown, deps: ExecutorFailureDeps): Promise<void> {
  const reason = `the run failed unexpectedly: ${e instanceof Error ? e.message : String(e)}`;
  deps.logger.error("run executor failed", { runId: run.id, code: "executor_failed", error: reason });
  const summary = failureSummary(run.action.name, "failed", reason);
  deps.finish(run, { status: "failed", error: reason, summary, delivered: false });
  const finished = { runId: run.id, sessionKey: run.action.sessionKey, name: run.action.name, status: "failed" as const, delivered: false };
  safeEmit(deps.logger, () => deps.emitter.emit("run:finished", finished));
  const report = { ...run, status: "failed" as const, error: reason, summary };
  if (!deps.closed() && !(await deps.repost(report))) {
    deps.unreported.set(run.id, report);
    deps.scheduleRetry();
  }
}
