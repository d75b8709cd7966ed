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
 *
 * A host may refuse an event for a moment: OpenClaw refuses the system events (and heartbeat requests) of a plugin
 * instance it reloads in place until it has published it (`cannot route system events during replacement
 * preparation`), which is exactly when the new instance's start hands what is kept. What the host refused, and the
 * heartbeat of `handPending` it refused, are asked again after `retryDelayMs`, doubling up to `maxRetryDelayMs`,
 * until the host takes them, a turn carried them, or the outbox closes (then the next start hands them). An event a
 * turn took is not asked again from that moment (before the store has forgotten it). `handPending`'s heartbeat is asked
 * once the host holds every kept event (asked before, the host's turn would find some missing).
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
  /** Hands every kept event to the host again (at start), and asks for a heartbeat when there was any; how many are kept. */
  handPending(reason: string): Promise<number>;
  /** Stops following the host's turns and asking the host again (the next start hands what is kept). */
  close(): void;
}

export interface SessionOutboxOptions {
  store: SessionEventStore;
  runtime: HostRuntime;
  events: EventEmitter<HostEvents>;
  logger: ModuleLogger;
  clock?: () => number;
  /** First wait before asking the host again for what it refused; default `DEFAULT_RETRY_DELAY_MS`. */
  retryDelayMs?: number;
  /** Longest wait between two asks; default `DEFAULT_MAX_RETRY_DELAY_MS`. */
  maxRetryDelayMs?: number;
}

/** A reload in place of OpenClaw publishes the new instance within a few seconds of its start. */
export const DEFAULT_RETRY_DELAY_MS = 1000;
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;

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

/** `sessionKey` + `dedupeKey`: an event's identity in the outbox. */
const idOf = (sessionKey: string, dedupeKey: string | undefined): string => `${sessionKey}\u0000${dedupeKey ?? ""}`;
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export function createSessionOutbox(opts: SessionOutboxOptions): SessionOutbox {
  const { store, runtime, events, logger } = opts;
  const clock = opts.clock ?? Date.now;
  const firstDelay = opts.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS;
  const maxDelay = opts.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
  let closed = false;
  /** Kept events the host refused, asked again by `retry`. */
  let refused = new Set<string>();
  /** Kept events a turn took, whose forgetting in the store is still under way (a turn that failed to forget keeps them here). */
  const taking = new Set<string>();
  /** The reason of a heartbeat the host refused after `handPending`, asked again by `retry`. */
  let heartbeatOwed: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = firstDelay;
  /** Asks again since the host last took everything: a refusal of the first ask is said at info (a reload's moment), of the next at warn, later ones not. */
  let retries = 0;
  /** The ask whose refusal was said (one line per ask). */
  let saidAt = -1;

  function said(what: string, e: unknown, fields: Record<string, unknown> = {}): void {
    if (saidAt === retries || retries > 1) return;
    saidAt = retries;
    const line = `${what}: the host refused it for now; asked again in ${delay} ms (up to every ${maxDelay} ms), and handed at every start until a turn took it`;
    if (retries === 0) logger.info(line, { ...fields, error: messageOf(e) });
    else logger.warn(line, { ...fields, error: messageOf(e) });
  }

  async function hand(sessionKey: string, text: string, meta: SystemEventMeta): Promise<boolean> {
    try {
      await runtime.sessions.enqueueSystemEvent(sessionKey, text, meta);
      return true;
    } catch (e) {
      // Kept in the store: asked again shortly, and handed again at every start.
      refused.add(idOf(sessionKey, meta.dedupeKey));
      said("a kept main-session event could not be handed to the host now", e, { dedupeKey: meta.dedupeKey });
      scheduleRetry();
      return false;
    }
  }

  function requestHeartbeat(reason: string): boolean {
    try {
      runtime.heartbeat.requestNow({ reason });
      heartbeatOwed = undefined;
      return true;
    } catch (e) {
      heartbeatOwed = reason;
      said("the heartbeat for the kept main-session events could not be requested now", e, { code: "heartbeat_failed" });
      scheduleRetry();
      return false;
    }
  }

  function scheduleRetry(): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      const asked = refused;
      void retry().catch((e: unknown) => {
        // The store could not be read (the events stay kept): asked again later, and handed at every start.
        for (const id of asked) refused.add(id);
        logger.warn("asking the host again for kept main-session events failed; tried again later", { error: messageOf(e) });
        scheduleRetry();
      });
    }, delay);
    timer.unref?.();
  }

  /** Asks the host again for what it refused (the events a turn took meanwhile are forgotten, not handed). */
  async function retry(): Promise<void> {
    timer = undefined;
    if (closed) return;
    retries++;
    delay = Math.min(delay * 2, maxDelay);
    const asked = refused;
    refused = new Set();
    const owed = heartbeatOwed;
    let handed = 0;
    for (const ev of store.pending().filter((e) => asked.has(idOf(e.sessionKey, e.dedupeKey)))) {
      if (closed) return;
      // A turn took it since (its forgetting still under way): not handed again.
      if (taking.has(idOf(ev.sessionKey, ev.dedupeKey))) continue;
      if (await hand(ev.sessionKey, ev.text, ev.meta)) handed++;
    }
    if (closed) return;
    // The heartbeat for kept events once the host has them all (asked for before, it would find them missing).
    if (owed !== undefined && refused.size === 0) requestHeartbeat(owed);
    if (refused.size > 0 || heartbeatOwed !== undefined) return;
    if (handed > 0 || owed !== undefined)
      logger.info("kept main-session events the host had refused handed to it now", { events: handed, heartbeat: owed !== undefined });
    retries = 0;
    saidAt = -1;
    delay = firstDelay;
  }

  const onTurn = (e: { sessionKey: string; input: string }): void => {
    if (store.count(e.sessionKey) === 0) return;
    const taken = store.pending({ sessionKey: e.sessionKey }).filter((ev) => {
      const signature = eventSignature(ev.text);
      return signature !== "" && e.input.includes(signature);
    });
    if (taken.length === 0) return;
    const ids = taken.map((ev) => idOf(e.sessionKey, ev.dedupeKey));
    for (const id of ids) {
      refused.delete(id);
      taking.add(id);
    }
    store
      .consumed(
        e.sessionKey,
        taken.map((ev) => ev.dedupeKey),
      )
      .then(
        (n) => {
          for (const id of ids) taking.delete(id);
          logger.debug("kept main-session events taken into a turn; forgotten", { sessionKey: e.sessionKey, events: n });
        },
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
      let handed = 0;
      for (const ev of pending) if (await hand(ev.sessionKey, ev.text, ev.meta)) handed++;
      if (pending.length === 0) return 0;
      logger.info("main-session events kept from before the start handed to the host again", { events: handed, refused: pending.length - handed });
      // The heartbeat once the host has every kept event: while it refuses some, it is owed and asked with them.
      if (handed === pending.length) requestHeartbeat(reason);
      else heartbeatOwed = reason;
      return pending.length;
    },
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      timer = undefined;
      events.off("turn", onTurn);
    },
  };
}
