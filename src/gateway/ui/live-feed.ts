/**
 * The Deliveries page's live feed: Server-Sent Events from `inspector.subscribe`.
 * Each new ledger row that passes the page's hook/status filters is one event:
 *
 *   id: <delivery id>
 *   event: delivery
 *   data: <DeliveryRow as one line of JSON>
 *
 * When the inspector offers `subscribeRuns`, a run that starts or finishes sends
 * its delivery's row again (the Run cell changed), as `event: run` with no id:
 *
 *   event: run
 *   data: <DeliveryRow as one line of JSON>
 *
 * A comment line every `keepAliveMs` keeps proxies from closing an idle stream;
 * `closeAll()` ends every stream (the gateway calls it when it stops, so open
 * dashboards never hold the shutdown up).
 */
import type { Request, Response } from "express";
import type { DeliveryQuery, HookInspector } from "../../host-contract/inspection";
import { matchesFilters } from "./delivery-filters";
import { deliveryRow } from "./views/delivery-row";

export const DEFAULT_KEEP_ALIVE_MS = 25_000;
/** Streams open at once at most; more get 503 (each one is a held connection). */
export const MAX_STREAMS = 50;
/** The browser's reconnection delay after a dropped stream. */
const RETRY_MS = 3000;

export interface LiveFeed {
  stream(req: Request, res: Response, inspector: HookInspector, query: DeliveryQuery): void;
  closeAll(): void;
  open(): number;
}

export function createLiveFeed(opts: { keepAliveMs?: number } = {}): LiveFeed {
  const keepAliveMs = opts.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const streams = new Set<() => void>();
  return {
    stream(req, res, inspector, query) {
      if (streams.size >= MAX_STREAMS) {
        res.status(503).setHeader("Retry-After", "10");
        res.json({ ok: false, code: "too_many_streams", error: `At most ${MAX_STREAMS} live feeds may be open at once; close a dashboard tab.` });
        return;
      }
      res.status(200);
      res.setHeader("Content-Type", "text/event-stream; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.setHeader("X-Accel-Buffering", "no");
      res.flushHeaders();
      res.write(`retry: ${RETRY_MS}\n\n`);
      const runStatus = (id: string) => inspector.getRun(id)?.status;
      const unsubscribe = inspector.subscribe((d) => {
        if (!matchesFilters(d, query)) return;
        res.write(`id: ${d.id}\nevent: delivery\ndata: ${JSON.stringify(deliveryRow(d, runStatus))}\n\n`);
      });
      // A run that starts or finishes updates the Run cell of its delivery's row (when the row passes the filters).
      const unsubscribeRuns = inspector.subscribeRuns?.((run) => {
        const d = run.deliveryId === undefined ? undefined : inspector.getDelivery(run.deliveryId);
        if (!d || !matchesFilters(d, query)) return;
        res.write(`event: run\ndata: ${JSON.stringify(deliveryRow(d, runStatus))}\n\n`);
      });
      const timer = setInterval(() => res.write(": keep-alive\n\n"), keepAliveMs);
      timer.unref();
      const end = () => {
        if (!streams.delete(end)) return;
        clearInterval(timer);
        unsubscribe();
        unsubscribeRuns?.();
        res.end();
      };
      streams.add(end);
      req.on("close", end);
    },
    closeAll() {
      for (const end of [...streams]) end();
    },
    open: () => streams.size,
  };
}
