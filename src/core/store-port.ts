/**
 * The asynchronous store port of a consumer (SPEC §16): what a process that runs agent
 * turns needs of a store that several processes share — runs claimed under a lease,
 * written while the lease holds, taken over when it expired, and the wakes receivers
 * stored for its main session. Implemented by the Postgres store
 * (src/store/postgres/pg-runs.ts, pg-wakes.ts); driven by the run consumer
 * (src/runs/run-consumer.ts).
 *
 * A lease is the fence: every write of a claimed run names its owner and fails (false)
 * once another consumer took the run over, so a run is never run by two consumers at once.
 */
import type { RunRecord, RunStatus } from "./runs";

/** The fields of a run a consumer writes. */
export type RunPatch = Partial<Pick<RunRecord, "status" | "startedAt" | "finishedAt" | "summary" | "error" | "summaryPending" | "attempts">>;

export interface ClaimedRuns {
  /**
   * Claims up to `limit` runs — the oldest queued run of each session key none of whose runs is running — marking them running under `owner`'s lease.
   * The store stamps each one's `startedAt` with its own clock at the claim, as it holds the leases' (the caller's clock is not asked: a time taken
   * before the claim waits for a connection would be earlier than the claim). The SQLite store implements no such port: its run queue
   * (src/runs/run-queue.ts) starts runs in its own process and stamps `startedAt` with its injected clock.
   */
  claim(opts: { owner: string; leaseMs: number; limit: number }): Promise<RunRecord[]>;
  /** Extends the leases `owner` still holds among `ids`; returns those. */
  renew(owner: string, ids: readonly string[], leaseMs: number): Promise<string[]>;
  /** Writes a run `owner` holds; false when it no longer holds it. A terminal status ends the lease. */
  finish(id: string, owner: string, patch: RunPatch): Promise<boolean>;
  /** Queues a run `owner` holds again (as the oldest of its session); false when it no longer holds it. */
  requeue(id: string, owner: string, patch?: RunPatch): Promise<boolean>;
  /** Ends `owner`'s leases now (a consumer stopping): another consumer takes its runs over at once. Returns how many. */
  release(owner: string): Promise<number>;
  /** Takes over runs whose lease expired, under `owner`'s lease (still running), with the owner they had. */
  reclaimExpired(opts: { owner: string; leaseMs: number; limit: number }): Promise<Array<{ run: RunRecord; previousOwner?: string }>>;
  /** Writes a run outside any lease (a finished run's summary posted). */
  update(id: string, patch: RunPatch): Promise<void>;
  /** Runs in these statuses, oldest first. */
  listByStatus(statuses: readonly RunStatus[], limit?: number): Promise<RunRecord[]>;
}

/** A wake a receiver stored for the main session. */
export interface StoredWake {
  id: string;
  seq: number;
  /** `{ text, mode, meta }` as the receiver's dispatcher would have handed it to its host. */
  event: Record<string, unknown>;
  /** ms since the epoch */
  createdAt: number;
}

export interface StoredWakes {
  /** The oldest wakes nobody holds, under `owner`'s lease. */
  take(opts: { owner: string; leaseMs: number; limit: number }): Promise<StoredWake[]>;
  /** Deletes wakes handed to the host. */
  ack(ids: readonly string[]): Promise<void>;
}

/** A run a receiver stores; the store gives it its arrival sequence (`seq`). */
export type NewRun = Omit<RunRecord, "seq">;

/** What a receiver writes (SPEC §16): runs and wakes, each request's all or none, committed with its turn's group commit. */
export interface ReceiverStore {
  /** Stores one request's runs (all or none); resolves with them, `seq` given, once committed. */
  storeRuns(runs: readonly NewRun[]): Promise<RunRecord[]>;
  /** Stores a wake for the consumer's main session; resolves once committed. */
  storeWake(event: { text: string; mode: string; reason: string; meta: Record<string, unknown> }): Promise<void>;
  get(id: string): Promise<RunRecord | undefined>;
  /** Runs queued in the whole store (every receiver's). */
  countQueued(): Promise<number>;
}
