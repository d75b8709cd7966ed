/**
 * The consumer of a shared store (SPEC §16): the process that runs agent turns for runs
 * that receivers — on other machines, behind a balancer — stored. It
 *
 * - **claims** runs (the oldest queued run of each session key none of whose runs is
 *   running: one at a time per session key, in arrival order), at most
 *   `maxConcurrent` at once, when woken (LISTEN/NOTIFY) or by its poll;
 * - runs each through the executor (turn → delivery → outcome recorded with its summary
 *   pending → summary on the main session), **renewing its lease** every third of it;
 *   a write after its lease was taken over is refused by the store, and then the run is
 *   neither recorded nor reported here (the consumer that took it over does that); an
 *   outcome the store could not take (Postgres restarted) is tried again until it can;
 * - **takes over** runs whose lease expired (their consumer died) and follows §7's rule
 *   for a run found running (`interruptedFate`, recovery.ts): reported `interrupted`, or
 *   queued again with `retryInterrupted` — never run by two consumers at once; a run
 *   leased to this consumer that it never started (the claim committed, its answer lost
 *   when Postgres stopped) is queued again as it was: no turn of it ran;
 * - hands the **wakes** receivers stored to its host's main session (and a heartbeat for
 *   mode "now"), then deletes them — through the durable main-session outbox on a host
 *   keeping its events in memory (wake-handoff.ts);
 * - at its start, posts again the summaries recorded but not confirmed posted.
 *
 * On stop it claims nothing more, lets its runs finish within the grace, cancels the rest
 * and ends its leases, so another consumer (or this one at its next start) takes them
 * over at once.
 *
 * @example
 *   const consumer = createRunConsumer({ runs, wakes, executor, runtime, owner, leaseMs: 30_000, ... });
 *   await consumer.start(); consumer.wake(); await consumer.stop(10_000);
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { HostRuntime } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import type { PluginEmitter } from "../core/events";
import type { RunExecutor, RunOutcome, RunRecord } from "../core/runs";
import type { ClaimedRuns, StoredWakes } from "../core/store-port";
import { isoAt, systemClock, type Clock } from "../core/clock";
import type { KeyNamer } from "../host-contract/config-keys";
import { interruptedFate } from "./recovery";
import { failureSummary } from "./summary";
import { safeEmit } from "./safe-emit";
import { storageFaultCode } from "../core/storage-fault";
import { createWakeHandoff } from "./wake-handoff";
import type { SessionOutbox } from "./session-outbox";

export interface RunConsumerOptions {
  runs: ClaimedRuns;
  wakes: StoredWakes;
  executor: RunExecutor;
  runtime: HostRuntime;
  /** This consumer's name in the leases it holds (unique per process: host, pid, random). */
  owner: string;
  leaseMs: number;
  maxConcurrent: number;
  retryInterrupted: boolean;
  logger: ModuleLogger;
  emitter: PluginEmitter;
  /** Finish times (`finishedAt`); default the system clock. A claimed run's `startedAt` is the store's clock at the claim (ClaimedRuns.claim). */
  clock?: Clock;
  keys?: KeyNamer;
  /** Called with each run the executor finished (Prefer: wait answers on a process that also receives). */
  onOutcome?: (run: RunRecord, outcome: RunOutcome) => void;
  /** A host keeping its events in memory (OpenClaw): wakes are put in the durable main-session outbox before their ack (wake-handoff.ts). */
  outbox?: Pick<SessionOutbox, "put">;
  /** The ids of the stored wakes the outbox kept at this start: acked before any wake is taken (wake-handoff.ts). */
  keptWakes?: readonly string[];
}

export interface RunConsumer {
  /** Posts pending summaries, takes over expired leases, then claims; the timers start. */
  start(): Promise<void>;
  /** Something arrived (a notification, the poll): claim runs and take wakes. */
  wake(reason?: "runs" | "wakes" | "poll"): void;
  /** Runs in progress here. */
  readonly running: number;
  stop(graceMs: number): Promise<void>;
}

/** Longest delay between two tries of recording an outcome while the store is unavailable. */
const RECORD_RETRY_MAX_MS = 2000;

export function createRunConsumer(options: RunConsumerOptions): RunConsumer {
  const { runs, wakes, executor, runtime, owner, leaseMs, logger, emitter } = options;
  const clock = options.clock ?? systemClock;
  const inProgress = new Map<string, { run: RunRecord; abort: AbortController; done: Promise<void> }>();
  /** Runs whose turn may have run here but whose outcome was never recorded (their execution threw): with inProgress, every run started here and not settled. */
  const unrecorded = new Set<string>();
  let stopping = false;
  let claiming = false;
  let claimAgain = false;
  let timers: NodeJS.Timeout[] = [];

  const failed = (what: string) => (e: unknown) =>
    logger.warn(`${what} failed; tried again at the next wake-up`, { error: (e as Error).message, code: (e as { code?: string }).code });

  /**
   * Records a terminal outcome with its summary pending, while the lease holds. The store
   * unavailable (Postgres restarted) is waited out: tried again with a growing delay until it
   * answers, the run still in progress here (so neither claimed again nor taken over by this
   * process), unless it is cut off (stop, lease lost) meanwhile.
   */
  async function record(run: RunRecord, outcome: RunOutcome, signal: AbortSignal): Promise<void | "lost"> {
    const patch = {
      status: outcome.status,
      finishedAt: isoAt(clock),
      summary: outcome.summary,
      summaryPending: true,
      ...(outcome.error !== undefined ? { error: outcome.error } : {}),
    };
    for (let delayMs = 100; ; delayMs = Math.min(delayMs * 2, RECORD_RETRY_MAX_MS)) {
      try {
        return (await runs.finish(run.id, owner, patch)) ? undefined : "lost";
      } catch (e) {
        if (storageFaultCode(e) === undefined || signal.aborted) throw e;
        if (delayMs === 100)
          logger.warn("recording the run outcome failed: the store is unavailable; tried again until it answers", { runId: run.id, code: storageFaultCode(e) });
        await sleep(delayMs, undefined, { signal }).catch(() => undefined);
      }
    }
  }

  async function execute(run: RunRecord, abort: AbortController): Promise<void> {
    const outcome = await executor.execute(run, abort.signal, (o) => record(run, o, abort.signal));
    if (outcome.cancelled || outcome.lost) return;
    options.onOutcome?.(run, outcome);
    // Posted: the outbox flag goes (a failure leaves it for the next start, whose re-post the dedupe key makes harmless).
    if (outcome.summaryPosted !== false) await runs.update(run.id, { summaryPending: false }).catch(failed("clearing a posted summary's flag"));
  }

  function launch(run: RunRecord): void {
    const abort = new AbortController();
    const done = execute(run, abort)
      .catch((e: unknown) => {
        unrecorded.add(run.id);
        logger.error("run failed in the consumer", { runId: run.id, error: (e as Error).message });
      })
      .finally(() => {
        inProgress.delete(run.id);
        claimSoon();
      });
    inProgress.set(run.id, { run, abort, done });
  }

  async function claim(): Promise<void> {
    if (claiming) {
      claimAgain = true;
      return;
    }
    claiming = true;
    try {
      do {
        claimAgain = false;
        const free = options.maxConcurrent - inProgress.size;
        if (stopping || free <= 0) return;
        const claimed = await runs.claim({ owner, leaseMs, limit: free });
        for (const run of claimed) launch(run);
        if (claimed.length === free) claimAgain = true;
      } while (claimAgain && !stopping);
    } finally {
      claiming = false;
    }
  }

  const claimSoon = (): void => void claim().catch(failed("claiming runs"));

  /** §7's rule for runs whose consumer died (their lease expired). */
  async function takeOver(): Promise<void> {
    const taken = await runs.reclaimExpired({ owner, leaseMs, limit: 100 });
    const byOwner = new Map<string | undefined, number>();
    for (const t of taken) byOwner.set(t.previousOwner, (byOwner.get(t.previousOwner) ?? 0) + 1);
    for (const { run, previousOwner } of taken) {
      // Its lease expired while the store was unavailable, but it is still in progress here (its outcome waits to be recorded): not dead.
      if (inProgress.has(run.id)) continue;
      if (previousOwner === owner && !unrecorded.has(run.id)) {
        // Claimed by this consumer but never started: the claim committed and its answer was lost (Postgres stopped meanwhile).
        if (await runs.requeue(run.id, owner, { attempts: Math.max((run.attempts ?? 1) - 1, 0) })) {
          logger.warn("a run claimed while Postgres stopped was never started here (the claim's answer was lost); queued again", { runId: run.id });
        }
        continue;
      }
      unrecorded.delete(run.id);
      const fate = interruptedFate(run, { retryInterrupted: options.retryInterrupted, besideOthers: (byOwner.get(previousOwner) ?? 0) > 1 }, options.keys);
      if (fate.kind === "requeue") {
        if (await runs.requeue(run.id, owner, fate.patch)) {
          logger.warn("run's consumer died while it was running; queued again (hooks.runs.retryInterrupted)", {
            runId: run.id,
            attempts: fate.attempts,
            previousOwner,
          });
        }
        continue;
      }
      const summary = failureSummary(run.action.name, "interrupted", fate.reason);
      if (!(await runs.finish(run.id, owner, { status: "interrupted", finishedAt: isoAt(clock), summary, error: fate.reason, summaryPending: true }))) continue;
      logger.warn("run's consumer died while it was running; reported interrupted", { runId: run.id, previousOwner, gaveUp: fate.gaveUp });
      await repost({ ...run, status: "interrupted", error: fate.reason, summary });
      safeEmit(logger, () =>
        emitter.emit("run:finished", { runId: run.id, sessionKey: run.action.sessionKey, name: run.action.name, status: "interrupted", delivered: false }),
      );
    }
    if (taken.length > 0) claimSoon();
  }

  async function repost(run: RunRecord & { summary: string }): Promise<void> {
    try {
      await executor.repostSummary(run);
    } catch (e) {
      failed("posting a summary")(e);
      return;
    }
    await runs.update(run.id, { summaryPending: false }).catch(failed("clearing a posted summary's flag"));
  }

  async function renew(): Promise<void> {
    const ids = [...inProgress.keys()];
    if (ids.length === 0) return;
    const held = new Set(await runs.renew(owner, ids, leaseMs));
    for (const id of ids) {
      const p = inProgress.get(id);
      if (!p || held.has(id)) continue;
      // Taken over (this process was presumed dead): the turn is cut off, and its outcome will not be recorded.
      logger.error("a run's lease was taken over by another consumer; its turn here is cut off", { runId: id, code: "lease_lost" });
      p.abort.abort(new Error("lease lost"));
    }
  }

  const handoff = createWakeHandoff({ wakes, runtime, owner, leaseMs, logger, outbox: options.outbox, keptWakes: options.keptWakes });
  const takeWakes = async (): Promise<void> => {
    if (!stopping) await handoff.take();
  };

  return {
    async start() {
      const pending = await runs.listByStatus(["succeeded", "failed", "timed_out", "interrupted"]);
      for (const run of pending) if (run.summaryPending && run.summary !== undefined) await repost({ ...run, summary: run.summary });
      await takeOver();
      await claim();
      await takeWakes().catch(failed("handing stored wakes"));
      timers = [
        setInterval(() => void renew().catch(failed("renewing leases")), Math.max(50, Math.floor(leaseMs / 3))),
        setInterval(() => void takeOver().catch(failed("taking over expired leases")), Math.max(50, Math.floor(leaseMs / 2))),
      ];
      for (const t of timers) t.unref();
    },
    wake(reason = "poll") {
      if (stopping) return;
      if (reason !== "wakes") claimSoon();
      if (reason !== "runs") void takeWakes().catch(failed("handing stored wakes"));
    },
    get running() {
      return inProgress.size;
    },
    async stop(graceMs) {
      stopping = true;
      const all = Promise.all([...inProgress.values()].map((p) => p.done));
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([all, new Promise<void>((r) => (timer = setTimeout(r, graceMs)))]);
      if (timer) clearTimeout(timer);
      for (const p of inProgress.values()) p.abort.abort(new Error("shutting down"));
      await all;
      for (const t of timers) clearInterval(t);
      // Cancelled runs are left running: ending the leases lets another consumer take them over now, not after the lease.
      await runs.release(owner).catch(failed("ending leases"));
    },
  };
}
