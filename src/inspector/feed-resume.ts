/**
 * Where a live feed that connects again picks up: the deliveries recorded after the
 * last one its client saw. The browser sends that id itself when it reconnects a
 * stream (`Last-Event-ID`, the `id:` of the last `delivery` event); the page sends it
 * as `?after=<id>` when it opens a new stream after the browser gave one up. Without
 * either, a feed starts with the next new delivery, as before.
 *
 * What was missed is read from the ledger (in the order rows were recorded) in the same tick as the stream subscribes,
 * and the ledger announces a row only once it is written, so no row falls between the
 * two and none comes twice. At most MAX_RESUMED rows are sent again (oldest first);
 * when more were missed, a `gap` event says how many were skipped (exactly, up to
 * READ_BACK rows after the last one seen; beyond that, at least that many).
 *
 * @example
 *   const after = resumeId(req);          // undefined, an id, or { problem }
 *   const { rows, skipped } = missedSince(inspector, query, after);
 */
import type { Request } from "express";
import type { DeliveryQuery, DeliverySummary, HookInspector } from "../core/inspection";

/** The most rows a feed is sent again when it resumes. */
export const MAX_RESUMED = 200;
/** How many rows are read back to find the last one seen (the most one ledger read gives). */
const READ_BACK = 500;

/** A delivery id (UUIDv7, src/intake/ledger/delivery-id.ts), lower case; tested on 36 characters only. */
const DELIVERY_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function deliveryIdOrUndefined(value: unknown): string | undefined {
  if (typeof value !== "string" || value.length !== 36) return undefined;
  const id = value.toLowerCase();
  return DELIVERY_ID.test(id) ? id : undefined;
}

/**
 * The id the stream resumes after: `?after=` (a bad one is a problem to answer 400 with)
 * or else the `Last-Event-ID` header (a bad one is ignored: the browser repeats what a
 * server sent, and the feed then starts afresh).
 */
export function resumeId(req: Request): string | { problem: string } | undefined {
  const after = req.query.after;
  if (after !== undefined) return deliveryIdOrUndefined(after) ?? { problem: "after must be a delivery id (the id of a row of the ledger)." };
  return deliveryIdOrUndefined(req.get("last-event-id"));
}

/** ms since the epoch at which a delivery id was made (when its row was recorded: delivery-recorder.ts). */
function idTime(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}

/**
 * The deliveries passing `query`'s hook and status filters recorded after `lastId`,
 * oldest first, at most MAX_RESUMED; `skipped` counts those left out.
 */
export function missedSince(inspector: HookInspector, query: DeliveryQuery, lastId: string): { rows: DeliverySummary[]; skipped: number } {
  // In the order they were recorded, newest first (not by receivedAt: a request that waited for its run is recorded late).
  const filters: DeliveryQuery = { limit: READ_BACK };
  if (query.hook !== undefined) filters.hook = query.hook;
  if (query.status !== undefined) filters.status = query.status;
  const found = inspector.listDeliveries(filters);
  const at = found.findIndex((d) => d.id === lastId);
  // Not among them (more than READ_BACK came after it, or it was pruned): only rows of later milliseconds are sure to be new.
  const newer = at >= 0 ? found.slice(0, at) : found.filter((d) => idTime(d.id) > idTime(lastId));
  const rows = newer.slice(0, MAX_RESUMED).reverse();
  return { rows, skipped: newer.length - rows.length };
}
