/**
 * The Deliveries page's live feed: Server-Sent Events from `inspector.subscribe`.
 * Each new ledger row that passes the page's hook/status filters is one event:
 *
 *   id: <delivery id>
 *   event: delivery
 *   data: <DeliveryRow as one line of JSON>
 *
 * A stream that names the last delivery its client saw (`Last-Event-ID`, `?after=`)
 * first gets the ones recorded since (feed-resume.ts).
 *
 * When the inspector offers `subscribeRuns`, a run that starts or finishes sends
 * its delivery's row again (the Run cell changed), as `event: run` with no id:
 *
 *   event: run
 *   data: <DeliveryRow as one line of JSON>
 *
 * **A client that does not read is never buffered for without bound.** Once its
 * queue (what `res.write` could not hand to the socket yet) would pass
 * MAX_QUEUED_BYTES (a laptop asleep behind an `ssh -L` tunnel), every further event
 * for it is dropped and counted, not queued; when the socket drains, one
 * `event: gap` / `data: {"missed":<n>}` tells the page how many it missed. A client
 * that took nothing of its queue over two keep-alive periods is disconnected (its
 * browser reconnects when it reads again). So each client holds at most
 * MAX_QUEUED_BYTES plus one event, whatever the traffic; a client that reads keeps
 * every event of a burst below that.
 *
 * **A stream lives no longer than its credential**: before each event and each
 * keep-alive the caller's `allowed()` is asked (the dashboard: is the cookie's
 * session still there — not logged out, not expired); once it is not, the stream
 * ends and nothing more is sent (the page's reconnection then gets 401).
 *
 * A comment line every `keepAliveMs` keeps proxies from closing an idle stream;
 * `closeAll()` ends every stream (the gateway calls it when it stops, so open
 * dashboards never hold the shutdown up).
 */
import type { Request, Response } from "express";
import type { DeliveryQuery, DeliverySummary, HookInspector } from "../core/inspection";
import { matchesFilters } from "./delivery-filters";
import { missedSince } from "./feed-resume";
import { deliveryRow } from "./views/delivery-row";
import { errorBody } from "../host-contract/json-response";

export const DEFAULT_KEEP_ALIVE_MS = 25_000;
/** Streams open at once at most; more get 503 (each one is a held connection). */
export const MAX_STREAMS = 50;
/** What may wait in one client's queue (bytes) before its events are dropped. */
export const MAX_QUEUED_BYTES = 128 * 1024;
/** The browser's reconnection delay after a dropped stream. */
const RETRY_MS = 3000;

/** The feeds' state for `/api/status` (`dashboard.liveFeeds`). */
export interface LiveFeedStats {
  /** Streams open now. */
  open: number;
  /** Open streams whose client is not reading: their events are being skipped. */
  skipping: number;
  /** Events skipped since the gateway started (announced to each client by a `gap` event). */
  skippedEvents: number;
  /** Streams closed because their client took nothing over two keep-alive periods. */
  dropped: number;
  /** Bytes written to open streams that their clients have not taken yet (at most about MAX_QUEUED_BYTES a stream). */
  queuedBytes: number;
}

export interface LiveFeed {
  /**
   * `allowed` is asked before each event and keep-alive: once false (the session logged out or expired) the stream ends.
   * `after`: the id of the last delivery the client saw; the ones recorded since are sent first (feed-resume.ts).
   * `base`: where the host mounts the pages (the rows link below it).
   */
  stream(req: Request, res: Response, inspector: HookInspector, query: DeliveryQuery, allowed?: () => boolean, after?: string, base?: string): void;
  closeAll(): void;
  open(): number;
  stats(): LiveFeedStats;
}

/** One client's writer: writes while its queue is under the cap, drops and counts events while it is not. */
interface FeedWriter {
  /** Writes an event (built only when it is sent), or drops it (counted) while the client's queue is full. */
  event(build: () => string): void;
  /** A keep-alive comment when nothing is queued; true when the client took nothing since the previous tick with a queue. */
  tick(): boolean;
  /** True while events are being skipped. */
  skipping(): boolean;
  /** Bytes waiting in this client's queue. */
  queued(): number;
}

function feedWriter(res: Response, counts: { skippedEvents: number }): FeedWriter {
  let missed = 0;
  let drained = true;
  let stalledTicks = 0;
  const sayGap = () => {
    if (missed === 0) return;
    const n = missed;
    missed = 0;
    res.write(`event: gap\ndata: {"missed":${n}}\n\n`);
  };
  res.on("drain", () => {
    drained = true;
    stalledTicks = 0;
    sayGap();
  });
  return {
    event(build) {
      // Once one is dropped, the rest wait for the gap notice (events stay in order); an empty queue always takes one.
      const queued = res.writableLength;
      if (queued > 0 && (missed > 0 || queued >= MAX_QUEUED_BYTES)) {
        missed += 1;
        counts.skippedEvents += 1;
        return;
      }
      const chunk = build();
      if (queued > 0 && queued + chunk.length > MAX_QUEUED_BYTES) {
        missed += 1;
        counts.skippedEvents += 1;
      } else if (!res.write(chunk)) drained = false;
    },
    tick() {
      if (res.writableLength === 0) {
        sayGap();
        res.write(": keep-alive\n\n");
        return false;
      }
      stalledTicks = drained ? 0 : stalledTicks + 1;
      drained = false;
      return stalledTicks >= 2;
    },
    skipping: () => missed > 0,
    queued: () => res.writableLength,
  };
}

export function createLiveFeed(opts: { keepAliveMs?: number } = {}): LiveFeed {
  const keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const streams = new Map<() => void, FeedWriter>();
  const counts = { skippedEvents: 0, dropped: 0 };
  // Every open feed hears of the same delivery object in turn: its event text is built once.
  let last: { d: DeliverySummary; base: string; text: string } | undefined;
  const deliveryEvent = (d: DeliverySummary, runStatus: (id: string) => string | undefined, base: string): string => {
    if (last?.d !== d || last.base !== base)
      last = { d, base, text: `id: ${d.id}\nevent: delivery\ndata: ${JSON.stringify(deliveryRow(d, runStatus, base))}\n\n` };
    return last.text;
  };
  return {
    stream(req, res, inspector, query, allowed = () => true, after = undefined, base = "/ui") {
      if (streams.size >= MAX_STREAMS) {
        res.status(503).setHeader("Retry-After", "10");
        res.json(errorBody("too_many_streams", `At most ${MAX_STREAMS} live feeds may be open at once; close a dashboard tab.`));
        return;
      }
      res.status(200);
      res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("X-Accel-Buffering", "no");
      res.flushHeaders();
      const out = feedWriter(res, counts);
      out.event(() => `retry: ${RETRY_MS}\n\n`);
      const runStatus = (id: string) => inspector.getRun(id)?.status;
      // What the client missed since the last delivery it saw, read in the tick it subscribes (nothing falls between).
      if (after !== undefined) {
        const { rows, skipped } = missedSince(inspector, query, after);
        if (skipped > 0) out.event(() => `event: gap\ndata: {"missed":${skipped}}\n\n`);
        for (const d of rows) out.event(() => deliveryEvent(d, runStatus, base));
      }
      const unsubscribe = inspector.subscribe((d) => {
        if (!allowed()) return end();
        if (matchesFilters(d, query)) out.event(() => deliveryEvent(d, runStatus, base));
      });
      // A run that starts or finishes updates the Run cell of its delivery's row (when the row passes the filters).
      const unsubscribeRuns = inspector.subscribeRuns?.((run) => {
        if (!allowed()) return end();
        const d = run.deliveryId === undefined ? undefined : inspector.getDelivery(run.deliveryId);
        if (d && matchesFilters(d, query)) out.event(() => `event: run\ndata: ${JSON.stringify(deliveryRow(d, runStatus, base))}\n\n`);
      });
      const end = (drop = false) => {
        if (!streams.delete(end)) return;
        if (drop) counts.dropped += 1;
        clearInterval(timer);
        unsubscribe();
        unsubscribeRuns?.();
        // A client that does not read would never take the end of the stream: close its socket.
        if (drop) res.destroy();
        else res.end();
      };
      const timer = setInterval(() => {
        if (!allowed()) end();
        else if (out.tick()) end(true);
      }, keepAliveMs);
      timer.unref();
      streams.set(end, out);
      req.on("close", () => end());
    },
    closeAll() {
      for (const end of [...streams.keys()]) end();
    },
    open: () => streams.size,
    stats: () => {
      const writers = [...streams.values()];
      const queuedBytes = writers.reduce((sum, w) => sum + w.queued(), 0);
      return { open: streams.size, skipping: writers.filter((w) => w.skipping()).length, ...counts, queuedBytes };
    },
  };
}
