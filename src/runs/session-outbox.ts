/**
 * The main-session outbox (SPEC §7 "In every host"): on a host that keeps its pending system events in memory
 * only (`runtime.sessions.eventsInMemory`: OpenClaw), a wake is stored in the plugin's own store
 * (`session_events`, src/store/session-event-store.ts) before its 2xx, then handed to the host; it is kept until
 * the host reports a turn whose input carries it (the host event `turn`), and every event still kept is handed to
 * the host again when the plugin starts (`handPending`). A wake answered 200 thus reaches the main session
 * whatever stop or restart comes between.
 *
 * At least once, always: an event is forgotten only once a turn's input carried it, so a stop before that hands it
 * again. Exactly once where the host reports the turn before it stops: the window left is a stop between the turn
 * that took the event and the commit forgetting it (a few milliseconds), after which the next start hands it again.
 *
 * An event is found in a turn's input by its wrapper's id (`<<<EXTERNAL_UNTRUSTED_CONTENT id="…">>>`, unique per
 * event), or, for a text the operator let through unwrapped, by its whole text; plain `indexOf`, no pattern.
 */
import { randomUUID } from "node:crypto";
import type { EventEmitter } from "eventemitter3";
import type { HostEvents, HostRuntime, SystemEventMeta } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import type { SessionEventStore } from "../core/session-events";

export interface SessionOutbox {
  /**
   * Stores the event (resolves once committed; rejects with the storage fault, nothing stored), then hands it to the host;
   * an event already kept under its `dedupeKey` for the session is not stored nor handed again (it is handed at every start).
   */
  put(sessionKey: string, text: string, meta: SystemEventMeta): Promise<void>;
  /** Hands every kept event to the host again (at start), and asks for a heartbeat when there was any; how many. */
  handPending(reason: string): Promise<number>;
  /** Stops following the host's turns. */
  close(): void;
}

export interface SessionOutboxOptions {
  store: SessionEventStore;
  runtime: HostRuntime;
  events: EventEmitter<HostEvents>;
  logger: ModuleLogger;
  clock?: () => number;
}

const WRAPPER_ID = 'EXTERNAL_UNTRUSTED_CONTENT id="';

/** What identifies `text` in a turn's input: its wrapper's id, else the whole text. */
export function eventSignature(text: string): string {
  const at = text.indexOf(WRAPPER_ID);
  if (at >= 0) {
    const start = at + WRAPPER_ID.length;
    const end = text.indexOf('"', start);
    if (end > start) return text.slice(start, end);
  }
  return text.trim();
}

export function createSessionOutbox(opts: SessionOutboxOptions): SessionOutbox {
  const { store, runtime, events, logger } = opts;
  const clock = opts.clock ?? Date.now;

  async function hand(sessionKey: string, text: string, meta: SystemEventMeta): Promise<boolean> {
    try {
      await runtime.sessions.enqueueSystemEvent(sessionKey, text, meta);
      return true;
    } catch (e) {
      // Kept in the store: handed again at the next start.
      logger.warn("a kept main-session event could not be handed to the host now; it is handed again at the next start", {
        dedupeKey: meta.dedupeKey,
        error: e instanceof Error ? e.message : String(e),
      });
      return false;
    }
  }

  const onTurn = (e: { sessionKey: string; input: string }): void => {
    if (store.count(e.sessionKey) === 0) return;
    const taken = store.pending({ sessionKey: e.sessionKey }).filter((ev) => {
      const signature = eventSignature(ev.text);
      return signature !== "" && e.input.includes(signature);
    });
    if (taken.length === 0) return;
    store
      .consumed(
        e.sessionKey,
        taken.map((ev) => ev.dedupeKey),
      )
      .then(
        (n) => logger.debug("kept main-session events taken into a turn; forgotten", { sessionKey: e.sessionKey, events: n }),
        (err: unknown) =>
          logger.warn("kept main-session events taken into a turn could not be forgotten; they are handed again at the next start", {
            error: err instanceof Error ? err.message : String(err),
          }),
      );
  };
  events.on("turn", onTurn);

  return {
    async put(sessionKey, text, meta) {
      const dedupeKey = meta.dedupeKey ?? `wake:${randomUUID()}`;
      const kept = { ...meta, dedupeKey };
      // Already kept under its key (a run's summary posted again after a crash): that one is handed, not a second copy.
      if (await store.stage({ sessionKey, dedupeKey, text, meta: kept, createdAt: clock() })) await hand(sessionKey, text, kept);
    },
    async handPending(reason) {
      const pending = store.pending();
      for (const ev of pending) await hand(ev.sessionKey, ev.text, ev.meta);
      if (pending.length === 0) return 0;
      logger.info("main-session events kept from before the start handed to the host again", { events: pending.length });
      try {
        runtime.heartbeat.requestNow({ reason });
      } catch (e) {
        logger.error("heartbeat request failed", { code: "heartbeat_failed", error: e instanceof Error ? e.message : String(e) });
      }
      return pending.length;
    },
    close: () => void events.off("turn", onTurn),
  };
}
