/**
 * Runs: an accepted agent action becomes a RunRecord in a RunStore, is scheduled
 * by the run queue (bounded concurrency, one at a time per session key, arrival
 * order) and executed by the run executor (runTurn → delivery → summary → heartbeat).
 *
 * The memory store of the tests (test/helpers/memory-run-store.ts) and the durable SQLite store
 * (src/store/run-store.ts) implement the same RunStore interface.
 */
import type { AgentAction, ActionSource } from "./actions";
import type { Result } from "./errors";

export type RunStatus = "queued" | "running" | "succeeded" | "failed" | "timed_out" | "interrupted";
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ["succeeded", "failed", "timed_out", "interrupted"];

export interface RunRecord {
  /** uuid v4 */
  id: string;
  status: RunStatus;
  /** Monotonic arrival sequence; defines per-session order. */
  seq: number;
  action: AgentAction;
  source: ActionSource;
  /** ISO-8601 UTC */
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  /** The summary posted to the main session. */
  summary?: string;
  /** Failure reason (for failed / timed_out / interrupted). */
  error?: string;
  /** The idempotency scope+key this run was accepted under, if any. */
  idempotencyKey?: string;
  /**
   * Outbox flag: the terminal outcome is recorded but its summary is not yet known to
   * be on the main session. Recovery re-posts it (with the run's dedupe key, so a
   * host that already has it drops the copy).
   */
  summaryPending?: boolean;
  /**
   * How many times the run was started (stored with its `running` state, in the same
   * write), less the starts cut off while other runs were running too (taken back by
   * recovery). Recovery with `retryInterrupted` stops re-queuing a run interrupted this many
   * times while running alone (MAX_RUN_ATTEMPTS, src/runs/recovery.ts). Absent: never started.
   */
  attempts?: number;
}

/** Public view for `GET {path}/runs/<id>`. */
export interface RunView {
  id: string;
  status: RunStatus;
  name: string;
  sessionKey: string;
  createdAt: string;
  startedAt?: string;
  finishedAt?: string;
  summary?: string;
}

export function toRunView(r: RunRecord): RunView {
  const v: RunView = { id: r.id, status: r.status, name: r.action.name, sessionKey: r.action.sessionKey, createdAt: r.createdAt };
  // A run re-queued after an interruption keeps its old startedAt in the store; queued means not started.
  if (r.startedAt && r.status !== "queued") v.startedAt = r.startedAt;
  if (r.finishedAt) v.finishedAt = r.finishedAt;
  if (r.summary !== undefined) v.summary = r.summary;
  return v;
}

export interface RunStore {
  /** Persists a new run (status "queued") now, in its own transaction (crash recovery and tests). */
  insert(run: RunRecord): void;
  /** Persists several new runs in one transaction: all of them, or (when it throws) none. */
  insertAll(runs: readonly RunRecord[]): void;
  /**
   * Persists a new run with the turn's group commit (one transaction for the runs of
   * every request of an event-loop turn); resolves once committed. The path every
   * accepted run takes (RunQueue.accept).
   */
  stageInsert(run: RunRecord): Promise<void>;
  /** Commits what `stageInsert` staged, now (before the store closes). */
  flush(): void;
  /** Applies a partial update (status transitions, timestamps, summary). */
  update(id: string, patch: Partial<Omit<RunRecord, "id" | "seq" | "action" | "source">>): void;
  get(id: string): RunRecord | undefined;
  /** Runs in the given statuses, ordered by seq ascending. */
  listByStatus(statuses: readonly RunStatus[]): RunRecord[];
  /** Number of runs in status "queued". */
  countQueued(): number;
  /** Next sequence number. */
  nextSeq(): number;
  close(): void;
}

/** What the executor reports when a run ends. */
export interface RunOutcome {
  status: Extract<RunStatus, "succeeded" | "failed" | "timed_out">;
  reply?: string;
  error?: string;
  summary: string;
  delivered: boolean;
  deliveryError?: string;
  /**
   * True when the caller's signal (shutdown) ended the run before the turn finished:
   * nothing was posted or delivered, and the run is left "running" for recovery.
   */
  cancelled?: boolean;
  /**
   * Set (with `cancelled`) when the host answered the turn `unavailable` (host contract): "started" — the turn
   * had begun, the run is left "running" for recovery (interrupted, or run again with retryInterrupted);
   * "not_started" — the host refused to start it, the run goes back to "queued" (the attempt not counted).
   */
  hostUnavailable?: "started" | "not_started";
  /** False when the summary could not be posted to the main session (it stays pending and is retried). */
  summaryPosted?: boolean;
  /** True when the run's lease was taken over before its outcome was recorded (a shared store, SPEC §16): nothing was recorded or posted. */
  lost?: boolean;
}

/** The run queue (src/runs/run-queue.ts): store + scheduler + executor. */
export interface RunQueue {
  /**
   * Persists several queued runs in one transaction and schedules them: all are
   * accepted, or none (`overloaded` when they would not all fit `maxQueued`).
   */
  enqueueAll(entries: ReadonlyArray<{ action: AgentAction; source: ActionSource; idempotencyKey?: string }>): Promise<Result<RunRecord[]>>;
  /**
   * Persists a new queued run through the store's group commit (with the other runs of
   * this event-loop turn, in one transaction) and schedules it; the result comes once it
   * is committed — the 202 still means stored. Fails with `overloaded` (Retry-After
   * header) beyond `hooks.runs.maxQueued`.
   */
  accept(action: AgentAction, source: ActionSource, opts?: { idempotencyKey?: string }): Promise<Result<RunRecord>>;
  get(id: string): RunRecord | undefined;
  /**
   * Reads what recovery will act on (runs found queued, running, or with a summary
   * pending) without writing anything; throws when the store cannot be read. Call it
   * where a failure may still stop the start; `start()` calls it when it was not.
   */
  open(): void;
  /** Recovery then workers: queued runs resume; runs found "running" become "interrupted" and are reported (or retried when configured). */
  start(): Promise<void>;
  /** Stops taking new work, lets running runs finish within graceMs, leaves queued ones for the next start. */
  stop(graceMs: number): Promise<void>;
  readonly queuedCount: number;
}

/** Executes one run against the host (src/runs/executor.ts). */
export interface RunExecutor {
  /**
   * runTurn with timeout → delivery → summary on the main session → heartbeat if wakeMode "now".
   * `signal` cancels the run (shutdown). `onOutcome` is called with the outcome before the summary
   * is posted (the queue records the terminal state there with `summaryPending`, so a crash at any
   * point neither loses nor doubles the report); it is not called for a cancelled run. It may be
   * asynchronous (a remote store): the summary waits for it. When it answers "lost" (the run's lease
   * was taken over, SPEC §16) the summary is not posted.
   */
  execute(run: RunRecord, signal?: AbortSignal, onOutcome?: (outcome: RunOutcome) => void | "lost" | Promise<void | "lost">): Promise<RunOutcome>;
  /**
   * Posts `Hook <name> (interrupted): <run.error or a default reason>` for a run that was running
   * when the process died, requests a heartbeat for wakeMode "now", and returns the summary.
   * The caller records the state and emits `run:finished`.
   */
  reportInterrupted(run: RunRecord): Promise<string>;
  /**
   * Posts a recorded summary again (recovery of `summaryPending`), with the run's dedupe key; heartbeat if
   * wakeMode "now". Rejects when the summary could not be posted.
   */
  repostSummary(run: RunRecord & { summary: string }): Promise<void>;
}
