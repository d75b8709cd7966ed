/**
 * The run queue (SPEC §5.1, §7): persists accepted runs, runs at most
 * `maxConcurrent` at once, one at a time per session key in arrival order,
 * recovers after a restart, and drains within a grace period on shutdown.
 *
 * Start is two steps so that a failed gateway start has no effect on accepted
 * runs: `open()` only reads what recovery will act on (damaged rows are named
 * and skipped by the store), `start()` acts on it (reports interrupted runs,
 * resumes queued ones). Storage faults: a run that cannot be stored is refused
 * with 503 `storage_unavailable`; a run whose start or summary cannot be
 * recorded is retried every `retryDelayMs` until the storage works again.
 */
import { randomUUID } from "node:crypto";
import { err, ok, type Result } from "../core/errors";
import { type RunOutcome, type RunQueue, type RunRecord, type RunStore } from "../core/runs";
import { isoAt, systemClock } from "../core/clock";
import { notStored, refuseRuns } from "./run-admission";
import { carryOutRecovery, readRecoveryPlan, type RecoveryPlan } from "./recovery";
import type { RunQueueOptions } from "./run-queue-options";
export type { RunQueueOptions };
import { createSummaryRetry } from "./summary-retry";
import { waitAtMost } from "./wait-at-most";
import { insertBySeq, nextToStart, runsAlone } from "./run-order";
import { createHostPause } from "./host-pause";
import { recordExecutorFailure, type ExecutorFailureDeps } from "./executor-failure";

type Phase = "idle" | "starting" | "started" | "stopping" | "stopped";

const SHUTDOWN_REASON = "the gateway is shutting down";

/** Creates the queue. Call `start()` (recovery + workers) before serving, `stop(graceMs)` on shutdown. */
export function createRunQueue(options: RunQueueOptions): RunQueue {
  const { store, executor, config, runtime, logger, emitter } = options;
  const clock = options.clock ?? systemClock;
  const idGen = options.idGen ?? randomUUID;
  const retryAfter = String(options.overloadRetryAfterSeconds ?? 30);
  const cancelSettleMs = options.cancelSettleMs ?? 1000;
  const retryDelayMs = options.retryDelayMs ?? 1000;

  /** Queued runs in seq order. */
  const queued: RunRecord[] = [];
  const queuedIds = new Set<string>();
  /** Session keys with a run in progress. */
  const busyKeys = new Set<string>();
  const running = new Map<string, { controller: AbortController; done: Promise<void>; alone: boolean }>();
  let phase: Phase = "idle";
  /** Once true the store is never written again (it may be closed right after stop()). */
  let closed = false;
  let pumpScheduled = false;
  let startPromise: Promise<void> | undefined;
  let stopPromise: Promise<void> | undefined;
  /** What recovery acts on, read by open() (no writes) and used by start(). */
  let recovery: RecoveryPlan | undefined;
  /** On while the host answered a turn `unavailable` (a drain, a reload): nothing starts meanwhile. */
  const hostPause = createHostPause(options.hostUnavailablePauseMs ?? 5000, () => pump());

  /** Applies a state change; false (logged) when it could not be stored. */
  function persist(id: string, patch: Parameters<RunStore["update"]>[1], transition: string): boolean {
    if (closed) {
      logger.warn("run state not recorded: the queue has stopped; the next start recovers the run", { runId: id, transition });
      return false;
    }
    // A finished run's state not stored yet goes with this change (summary-retry.ts).
    const unstoredChange = retry.unrecorded.get(id);
    try {
      store.update(id, unstoredChange ? { ...unstoredChange.patch, ...patch } : patch);
      retry.unrecorded.delete(id);
      return true;
    } catch (e) {
      logger.error("run state could not be stored", { runId: id, transition, code: "store_failed", error: e instanceof Error ? e.message : String(e) });
      if (unstoredChange) retry.owe(id, patch, unstoredChange.transition);
      return false;
    }
  }

  /** Final states and summaries that could not be stored, and runs that could not be started: retried every `retryDelayMs`. */
  const retry = createSummaryRetry({ executor, logger, persist, delayMs: retryDelayMs, isStarted: () => phase === "started", afterRetry: () => pump() });
  const { unreported, repost, schedule: scheduleRetry } = retry;

  function addQueued(run: RunRecord): void {
    if (queuedIds.has(run.id) || running.has(run.id)) return;
    insertBySeq(queued, run);
    queuedIds.add(run.id);
  }

  function schedulePump(): void {
    if (pumpScheduled) return;
    pumpScheduled = true;
    // Deferred so that enqueue() returns (and the 202 is sent) before any run starts.
    setImmediate(() => {
      pumpScheduled = false;
      pump();
    });
  }

  function pump(): void {
    while (phase === "started" && !hostPause.active) {
      // The oldest run of a free session key; a run interrupted before runs alone (run-order.ts).
      const index = nextToStart(queued, busyKeys, running, config.maxConcurrent);
      if (index < 0) return;
      const [run] = queued.splice(index, 1);
      queuedIds.delete(run.id);
      if (!launch(run)) {
        // Not started: a run whose start is not on record would run again after a restart.
        addQueued(run);
        scheduleRetry();
        return;
      }
    }
  }

  function finish(run: RunRecord, outcome: RunOutcome): void {
    const patch: Parameters<RunStore["update"]>[1] = { status: outcome.status, finishedAt: isoAt(clock), summary: outcome.summary, summaryPending: true };
    const error = outcome.error ?? outcome.deliveryError;
    if (error !== undefined) patch.error = error;
    if (!persist(run.id, patch, outcome.status)) retry.owe(run.id, patch, outcome.status);
  }

  const failureDeps: ExecutorFailureDeps = { logger, emitter, finish, repost, unreported, scheduleRetry, closed: () => closed };

  /** Starts a run; false when its "running" state could not be stored (the run is not started). */
  function launch(run: RunRecord): boolean {
    const key = run.action.sessionKey;
    const startedAt = isoAt(clock);
    // Counted in the write that marks it running: a crash right after it still counts (recovery.ts).
    const attempts = (run.attempts ?? 0) + 1;
    if (!persist(run.id, { status: "running", startedAt, attempts }, "running")) return false;
    busyKeys.add(key);
    const record: RunRecord = { ...run, status: "running", startedAt, attempts };
    const controller = new AbortController();
    /** The host refused to start the turn: the run is queued again (its attempt not counted). */
    let requeue = false;
    const done = executor
      .execute(record, controller.signal, (outcome) => finish(record, outcome))
      .then(
        (outcome) => {
          if (outcome.hostUnavailable) {
            // The host is going away: nothing starts for a while. A turn it had started is left running for recovery.
            hostPause.start();
            requeue =
              outcome.hostUnavailable === "not_started" && persist(run.id, { status: "queued", attempts: run.attempts ?? 0 }, "queued (host unavailable)");
          } else if (outcome.cancelled) logger.warn("run left running for recovery", { runId: run.id, sessionKey: key });
          else if (outcome.summaryPosted === false) {
            unreported.set(run.id, { ...record, status: outcome.status, summary: outcome.summary });
            scheduleRetry();
          } else persist(run.id, { summaryPending: false }, "summary posted");
        },
        (e: unknown) => recordExecutorFailure(record, e, failureDeps),
      )
      .finally(() => {
        running.delete(run.id);
        busyKeys.delete(key);
        if (requeue) addQueued({ ...record, status: "queued", attempts: run.attempts ?? 0 });
        pump();
      });
    running.set(run.id, { controller, done, alone: runsAlone(run) });
    return true;
  }

  /** Reads what recovery will act on; writes nothing. Malformed rows are named and skipped by the store. */
  function open(): void {
    recovery ??= readRecoveryPlan(store);
  }

  async function recover(): Promise<void> {
    const plan = recovery ?? readRecoveryPlan(store);
    recovery = undefined;
    const done = await carryOutRecovery(plan, {
      config,
      logger,
      emitter,
      clock,
      persist,
      repost,
      owe: retry.owe,
      keys: options.keys,
      stillRunning: (id) => runtime.agents.stillRunning?.(id) === true,
    });
    for (const run of done.unreported) unreported.set(run.id, run);
    for (const run of [...plan.queued, ...done.requeued]) addQueued(run);
    logger.info("run queue recovered", { queued: queued.length, interrupted: done.interrupted, requeued: done.requeued.length, reposted: done.reposted });
  }

  async function start(): Promise<void> {
    if (phase !== "idle") return startPromise;
    phase = "starting";
    startPromise = recover().then(() => {
      if (phase !== "starting") return;
      phase = "started";
      pump();
      if (unreported.size > 0 || retry.unrecorded.size > 0) scheduleRetry();
    });
    return startPromise;
  }

  async function doStop(graceMs: number): Promise<void> {
    phase = "stopping";
    if (startPromise) await startPromise.catch(() => undefined);
    retry.cancel();
    hostPause.cancel();
    const allDone = (): Promise<unknown> => Promise.all([...running.values()].map((r) => r.done));
    if (running.size > 0 && !(await waitAtMost(allDone(), graceMs))) {
      logger.warn("grace period over; cancelling runs still in progress (the next start reports them as interrupted)", { runs: running.size, graceMs });
      for (const r of running.values()) r.controller.abort(new Error(SHUTDOWN_REASON));
      await waitAtMost(allDone(), cancelSettleMs);
    }
    store.flush();
    closed = true;
    phase = "stopped";
    logger.info("run queue stopped", { queued: queued.length, leftRunning: running.size });
  }

  /** Staged inserts not yet committed: they count towards `maxQueued`. */
  let accepting = 0;

  /** The admission checks of `runs` now; an error when they are refused. */
  const refused = (runs: ReadonlyArray<Pick<RunRecord, "action" | "source">>) =>
    refuseRuns(
      {
        stopping: phase === "stopping" || phase === "stopped",
        mainKey: runtime.sessions.mainKey,
        depth: (phase === "started" ? queued.length : store.countQueued()) + accepting,
        maxQueued: config.maxQueued,
        retryAfter,
        logger,
      },
      runs,
    );

  /** A new queued run record. */
  function newRecord(action: RunRecord["action"], source: RunRecord["source"], idempotencyKey: string | undefined): RunRecord {
    const record: RunRecord = { id: idGen(), status: "queued", seq: store.nextSeq(), action, source, createdAt: isoAt(clock) };
    if (idempotencyKey !== undefined) record.idempotencyKey = idempotencyKey;
    return record;
  }

  /** A stored run joins the queue. Per-run line at debug: the accept itself is reported by the request log. */
  function queuedNow(record: RunRecord): RunRecord {
    addQueued(record);
    logger.debug("run queued", {
      runId: record.id,
      seq: record.seq,
      sessionKey: record.action.sessionKey,
      hook: record.source.hook,
      requestId: record.source.requestId,
    });
    schedulePump();
    return { ...record };
  }

  /** Persists several queued runs in one transaction (a fan-out) and schedules them: all accepted, or none. */
  function acceptAll(entries: ReadonlyArray<{ action: RunRecord["action"]; source: RunRecord["source"]; idempotencyKey?: string }>): Result<RunRecord[]> {
    const refusal = refused(entries);
    if (refusal) return err(refusal);
    const records = entries.map(({ action, source, idempotencyKey }) => newRecord(action, source, idempotencyKey));
    try {
      store.insertAll(records);
    } catch (e) {
      return err(notStored(logger, e, entries[0].source));
    }
    return ok(records.map(queuedNow));
  }

  async function accept(action: RunRecord["action"], source: RunRecord["source"], opts: { idempotencyKey?: string } = {}): Promise<Result<RunRecord>> {
    // The checks before a run is stored, then the record to store.
    const refusal = refused([{ action, source }]);
    if (refusal) return err(refusal);
    const record = newRecord(action, source, opts.idempotencyKey);
    accepting++;
    try {
      await store.stageInsert(record);
    } catch (e) {
      return err(notStored(logger, e, source));
    } finally {
      accepting--;
    }
    return ok(queuedNow(record));
  }

  return {
    enqueueAll: async (entries) => (entries.length === 0 ? ok([]) : acceptAll(entries)),
    accept,
    get: (id) => store.get(id),
    open,
    start,
    stop(graceMs) {
      stopPromise ??= doStop(graceMs);
      return stopPromise;
    },
    get queuedCount() {
      return queued.length;
    },
  };
}
