/**
 * The wakes receivers stored in a shared store (SPEC §16), handed to the consumer's main session and then
 * deleted there (`ack`), oldest first, in batches; the consumer (run-consumer.ts) calls `take` when woken.
 *
 * On a host that keeps its pending events in memory only (`runtime.sessions.eventsInMemory`: OpenClaw), a wake
 * is handed through the durable main-session outbox (session-outbox.ts) instead: committed in the plugin's local
 * store under its dedupe key `wake:<id>` before its ack, kept there until a turn carried it and handed again at
 * every start, so a stop of the host after the ack and before a turn loses none (issue 34).
 *
 * A stop between the local commit and the ack leaves the wake in both stores; the outbox's dedupeKey rule (a key
 * kept is neither stored nor handed again) covers the copy only while the outbox keeps it, and a turn may take it
 * before Postgres offers it again. So the wakes committed locally and not yet acked — those the outbox keeps at the
 * start (`keptWakes`), and those whose ack failed — are acked before anything more is taken: once kept locally, a
 * wake is never taken from Postgres again by this consumer. Another consumer whose lease takeover comes first
 * (this one stopped in that window, several consumers sharing the store) can still hand it once more: docs/scale.md.
 *
 * Without an outbox, a wake is handed straight to the host and acked; a consumer that dies in between leaves it to
 * be taken again when its lease expires, and the host's dedupe key (the wake's id) drops a second copy.
 *
 * @example
 *   const handoff = createWakeHandoff({ wakes, runtime, owner, leaseMs: 30_000, logger, outbox, keptWakes });
 *   await handoff.take();
 */
import type { HostRuntime } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import type { StoredWake, StoredWakes } from "../core/store-port";
import type { SessionOutbox } from "./session-outbox";

export interface WakeHandoffOptions {
  wakes: StoredWakes;
  runtime: HostRuntime;
  /** The consumer's name in the leases it holds. */
  owner: string;
  leaseMs: number;
  logger: ModuleLogger;
  /** A host keeping its events in memory: each wake is put in the durable outbox before its ack (default: handed to the host). */
  outbox?: Pick<SessionOutbox, "put">;
  /** The ids of the wakes the outbox kept at this start (dedupe key `wake:<id>`): acked before any wake is taken. */
  keptWakes?: readonly string[];
}

export interface WakeHandoff {
  /** Hands every wake nobody holds (after acking what is kept locally and not acked); rejects with the store's fault. */
  take(): Promise<void>;
}

const WAKE_BATCH = 100;
const WAKE_KEY_PREFIX = "wake:";

/** The dedupe key of a stored wake with the host and in the outbox. */
export const wakeDedupeKey = (id: string): string => `${WAKE_KEY_PREFIX}${id}`;

/** The ids of the stored wakes among an outbox's kept dedupe keys. */
export const wakeIdsOf = (dedupeKeys: readonly string[]): string[] =>
  dedupeKeys.filter((k) => k.startsWith(WAKE_KEY_PREFIX)).map((k) => k.slice(WAKE_KEY_PREFIX.length));

export function createWakeHandoff(opts: WakeHandoffOptions): WakeHandoff {
  const { wakes, runtime, owner, leaseMs, logger, outbox } = opts;
  /** Committed in the outbox, not yet acked in the shared store. */
  const unacked = new Set(opts.keptWakes ?? []);
  let taking = false;

  async function hand(wake: StoredWake): Promise<void> {
    const e = wake.event as { text: string; mode?: string; meta?: Record<string, unknown>; reason?: string };
    const meta = { ...(e.meta ?? {}), dedupeKey: wakeDedupeKey(wake.id) };
    const mainKey = runtime.sessions.mainKey;
    if (outbox) {
      await outbox.put(mainKey, e.text, meta);
      unacked.add(wake.id);
    } else await runtime.sessions.enqueueSystemEvent(mainKey, e.text, meta);
    if (e.mode === "now") {
      try {
        runtime.heartbeat.requestNow({ reason: e.reason ?? "hook:wake" });
      } catch (err) {
        logger.error("heartbeat request failed", { code: "heartbeat_failed", error: (err as Error).message });
      }
    }
  }

  async function ack(ids: readonly string[]): Promise<void> {
    await wakes.ack(ids);
    for (const id of ids) unacked.delete(id);
  }

  return {
    async take() {
      if (taking) return;
      taking = true;
      try {
        // Kept locally (a stop came between the commit and the ack, or the ack failed): never taken again.
        if (unacked.size > 0) await ack([...unacked]);
        for (;;) {
          const batch = await wakes.take({ owner, leaseMs, limit: WAKE_BATCH });
          const handed: string[] = [];
          try {
            for (const w of batch) {
              await hand(w);
              handed.push(w.id);
            }
          } finally {
            await ack(handed);
          }
          if (batch.length < WAKE_BATCH) return;
        }
      } finally {
        taking = false;
      }
    },
  };
}
