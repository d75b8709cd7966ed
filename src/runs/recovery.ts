/**
 * Recovery of the run queue after a restart (SPEC §7), in two steps so a failed
 * gateway start has no effect on accepted runs:
 *
 * 1. `readRecoveryPlan(store)` reads what recovery acts on — runs whose summary is
 *    recorded but maybe not posted, runs found running, runs still queued — and
 *    writes nothing (the store names and skips rows it cannot read).
 * 2. `carryOutRecovery(plan, deps)`, once the start cannot fail any more: re-posts
 *    pending summaries, records runs found running as interrupted and reports them
 *    (or queues them again with `retryInterrupted`, unless they were already cut off
 *    MAX_RUN_ATTEMPTS times while running alone).
 *
 * Which run a crash is counted against: a run found running alone was the only thing in
 * progress, so the crash counts against it. Runs found running together cannot be told
 * apart (any one of them may have killed the gateway), so that start counts against none
 * of them; each is queued again, and a run queued again runs alone (run-order.ts), so its
 * next crash is its own. A poison run is then given up after MAX_RUN_ATTEMPTS crashes of
 * its own and the runs that ran beside it finish.
 *
 * @example
 *   const plan = readRecoveryPlan(store);            // in the service's start()
 *   const done = await carryOutRecovery(plan, deps); // in its ready()
 */
import type { RunsConfig } from "../config/types";
import type { ModuleLogger } from "../core/logger";
import type { PluginEmitter } from "../core/events";
import { TERMINAL_RUN_STATUSES, type RunRecord, type RunStore } from "../core/runs";
import { isoAt, type Clock } from "../core/clock";
import { INTERRUPTED_REASON } from "./executor";
import { failureSummary } from "./summary";
import { safeEmit } from "./safe-emit";
import type { KeyNamer } from "../host-contract/config-keys";

/** A finished run whose summary is recorded but not (yet) on the main session. */
export type Unreported = RunRecord & { summary: string };

export interface RecoveryPlan {
  /** Outcomes recorded before a crash whose summary may not have reached the main session. */
  outbox: Unreported[];
  /** Runs that were running when the gateway stopped. */
  running: RunRecord[];
  /** Runs still queued, in seq order. */
  queued: RunRecord[];
}

/** Reads what recovery will act on; writes nothing. */
export function readRecoveryPlan(store: RunStore): RecoveryPlan {
  return {
    outbox: store.listByStatus(TERMINAL_RUN_STATUSES).flatMap((r) => (r.summaryPending && r.summary !== undefined ? [{ ...r, summary: r.summary }] : [])),
    running: store.listByStatus(["running"]),
    queued: store.listByStatus(["queued"]),
  };
}

export interface RecoveryDeps {
  config: Pick<RunsConfig, "retryInterrupted">;
  logger: ModuleLogger;
  emitter: PluginEmitter;
  clock: Clock;
  /** Applies a state change; false (logged) when it could not be stored. */
  persist(id: string, patch: Parameters<RunStore["update"]>[1], transition: string): boolean;
  /** Keeps a state change that could not be stored, to store it again until the store works (summary-retry.ts). */
  owe(id: string, patch: Parameters<RunStore["update"]>[1], transition: string): void;
  /** Posts a recorded summary and clears its pending flag; false when it could not be posted. */
  repost(run: Unreported): Promise<boolean>;
  /** The host's `agents.stillRunning`: the run's turn goes on in the host (it is joined, not run again). */
  stillRunning?(runId: string): boolean;
  /** Names the plugin's config keys in the reasons it records, as the host keeps them (config-keys.ts); default as written. */
  keys?: KeyNamer;
}

export interface RecoveryResult {
  /** Summaries that could not be posted (to be retried). */
  unreported: Unreported[];
  /** Runs found running and queued again (`retryInterrupted`, or their turn goes on in the host), to be scheduled with the queued ones. */
  requeued: RunRecord[];
  interrupted: number;
  reposted: number;
}

/**
 * How many counted starts a run gets with `retryInterrupted`: a run found running alone
 * after this many (each one cut off by a crash or a shutdown) is not queued again but
 * recorded interrupted, so a payload that kills the gateway cannot crash-loop it. A start
 * cut off while other runs were running too is not counted (see above).
 */
export const MAX_RUN_ATTEMPTS = 3;

/** The reason recorded for a run not queued again after `attempts` counted interrupted starts. */
export function gaveUpReason(attempts: number): string {
  return `the gateway stopped ${attempts} times while this run was running alone; it was not retried again (hooks.runs.retryInterrupted gives up on a run interrupted ${MAX_RUN_ATTEMPTS} times while running alone)`;
}

/** What becomes of a run found running when its process died (§7): queued again (`retryInterrupted`, fewer than MAX_RUN_ATTEMPTS counted starts), or interrupted with its reason. */
export type InterruptedFate =
  | { kind: "requeue"; patch: { status: "queued"; attempts?: number }; attempts: number }
  | { kind: "interrupted"; reason: string; gaveUp: boolean; attempts: number };

/**
 * The one rule for a run found running when its process died — after a restart (here) or when
 * its consumer's lease expired (run-consumer.ts). `besideOthers`: it was running with other runs
 * of that process, so that start is not counted against it (taken back in the patch).
 */
export function interruptedFate(run: RunRecord, opts: { retryInterrupted: boolean; besideOthers: boolean }, keys: KeyNamer = (s) => s): InterruptedFate {
  // A run found running was started at least once (a row from before attempts were counted says 0).
  const attempts = Math.max(run.attempts ?? 0, 1) - (opts.besideOthers ? 1 : 0);
  if (opts.retryInterrupted && attempts < MAX_RUN_ATTEMPTS) {
    return { kind: "requeue", patch: opts.besideOthers ? { status: "queued", attempts } : { status: "queued" }, attempts };
  }
  if (opts.retryInterrupted) return { kind: "interrupted", reason: keys(gaveUpReason(attempts)), gaveUp: true, attempts };
  return { kind: "interrupted", reason: keys(INTERRUPTED_REASON), gaveUp: false, attempts };
}

/** Records a run found running as interrupted (summary pending), then reports it. */
async function reportInterrupted(run: RunRecord, error: string, deps: RecoveryDeps, result: RecoveryResult): Promise<void> {
  const { logger, emitter, clock, persist, repost } = deps;
  const summary = failureSummary(run.action.name, "interrupted", error);
  // Recorded before it is reported (summary pending), like a finished run; kept and stored again while the store fails.
  const patch = { status: "interrupted" as const, finishedAt: isoAt(clock), summary, error, summaryPending: true };
  if (!persist(run.id, patch, "interrupted")) deps.owe(run.id, patch, "interrupted");
  const report: Unreported = { ...run, status: "interrupted", error, summary };
  if (!(await repost(report))) result.unreported.push(report);
  safeEmit(logger, () =>
    emitter.emit("run:finished", { runId: run.id, sessionKey: run.action.sessionKey, name: run.action.name, status: "interrupted", delivered: false }),
  );
  result.interrupted++;
}

/** Acts on the plan (not on `plan.queued`: the caller schedules those and `requeued`). */
export async function carryOutRecovery(plan: RecoveryPlan, deps: RecoveryDeps): Promise<RecoveryResult> {
  const { config, logger, persist, repost } = deps;
  const keys = deps.keys ?? ((sentence: string) => sentence);
  const result: RecoveryResult = { unreported: [], requeued: [], interrupted: 0, reposted: 0 };
  for (const run of plan.outbox) {
    if (!(await repost(run))) result.unreported.push(run);
    result.reposted++;
  }
  // Found running beside other runs: this start is not counted against it (taken back in the write that queues it again).
  const uncounted = plan.running.length > 1 ? 1 : 0;
  for (const run of plan.running) {
    if (deps.stillRunning?.(run.id)) {
      // The service stopped, the host did not (a config reload): joining the turn runs nothing again.
      // Queued even when that state cannot be stored (disk full): its start is stored over it, and retried until it is.
      persist(run.id, { status: "queued" }, "queued (its turn goes on in the host)");
      result.requeued.push({ ...run, status: "queued" });
      logger.info("run's turn goes on in the host; queued to join it", { runId: run.id });
      continue;
    }
    const fate = interruptedFate(run, { retryInterrupted: config.retryInterrupted, besideOthers: uncounted === 1 }, keys);
    if (fate.kind === "requeue") {
      // Queued again even when that state cannot be stored (disk full): its start is stored over it, and retried until it is.
      persist(run.id, fate.patch, "queued (retry interrupted)");
      result.requeued.push({ ...run, ...fate.patch });
      logger.warn("run was running when the gateway stopped; queued again, to run alone (hooks.runs.retryInterrupted)", {
        runId: run.id,
        attempts: fate.attempts,
        besideOthers: uncounted === 1,
      });
      continue;
    }
    if (fate.gaveUp)
      logger.error("run was interrupted at every start; not queued again (hooks.runs.retryInterrupted)", {
        runId: run.id,
        attempts: fate.attempts,
        code: "run_gave_up",
      });
    await reportInterrupted(run, fate.reason, deps, result);
  }
  return result;
}
