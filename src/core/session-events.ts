/**
 * The main-session outbox's vocabulary (SPEC §7 "In every host"): an event the plugin
 * puts on a session (a wake, a run's summary) is stored before its 2xx and kept until
 * the host says it took it into a turn (`systemEvents` "consumed", host API 1.5), so a
 * host that keeps its events in memory loses none at a stop; the outbox
 * (src/runs/session-outbox.ts) hands what is kept to the host again at the next start.
 *
 * The durable store is src/store/session-event-store.ts.
 */
import type { SystemEventMeta } from "../host-contract/host-api";

/** One event of the outbox. `dedupeKey` is its identity with the host (`meta.dedupeKey`): one per key and session. */
export interface SessionEvent {
  sessionKey: string;
  dedupeKey: string;
  text: string;
  meta: SystemEventMeta & { dedupeKey: string };
  /** ms since the epoch */
  createdAt: number;
}

/** A stored event, in arrival order (`seq`). */
export interface StoredSessionEvent extends SessionEvent {
  seq: number;
}

export interface SessionEventStore {
  /**
   * The event's INSERT, in the write batch of this event-loop turn (the same transaction as
   * the turn's ledger rows, runs and idempotency records): resolves once committed — true,
   * or false when an event with this key is already kept for the session (nothing written).
   * Rejects with the storage fault when the transaction fails (nothing of it is stored).
   */
  stage(event: SessionEvent): Promise<boolean>;
  /** The kept events, oldest first: of `sessionKey` (else of every session), at most `limit`. */
  pending(opts?: { sessionKey?: string; limit?: number }): StoredSessionEvent[];
  /** Forgets the events the host took into a turn (in the turn's write batch); resolves with how many were kept. */
  consumed(sessionKey: string, dedupeKeys: readonly string[]): Promise<number>;
  /** How many events are kept for `sessionKey`. */
  count(sessionKey: string): number;
}
