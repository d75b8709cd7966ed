/**
 * The deliveries page's filters, parsed once from the query string into the
 * inspector's DeliveryQuery: `search` (words to find), `hook` (a name), `status`
 * (`404` or `4xx`, the rule of host-contract statusRange), `since` (a window: `15m`, `1h`, `24h`, `7d`) and `before` (the
 * next page). A bad value is named in `problem` and the filter is left out — of the
 * listing and of the live feed's URL alike, so a bad filter never reaches the feed.
 */
import { beforeProblem, searchProblem, statusProblem, statusRange, type DeliveryQuery } from "../core/inspection";

export const SINCE_WINDOWS: Record<string, { label: string; ms: number }> = {
  "15m": { label: "last 15 minutes", ms: 15 * 60_000 },
  "1h": { label: "last hour", ms: 60 * 60_000 },
  "24h": { label: "last 24 hours", ms: 24 * 60 * 60_000 },
  "7d": { label: "last 7 days", ms: 7 * 24 * 60 * 60_000 },
};

export const PAGE_SIZE = 50;
const MAX_FILTER_CHARS = 200;

export interface DeliveryFilters {
  search: string;
  hook: string;
  status: string;
  since: string;
  before: string;
  /** The query to hand the inspector. */
  query: DeliveryQuery;
  problem?: string;
}

function filterText(v: unknown): string {
  return typeof v === "string" ? v.trim() : "";
}

export function parseDeliveryFilters(q: Record<string, unknown>, now: number): DeliveryFilters {
  const f: DeliveryFilters = {
    search: filterText(q.search),
    hook: filterText(q.hook),
    status: filterText(q.status),
    since: filterText(q.since),
    before: filterText(q.before),
    query: { limit: PAGE_SIZE },
  };
  const problems: string[] = [];
  const searchRule = f.search ? searchProblem(f.search) : undefined;
  if (searchRule) problems.push(`search ${searchRule}`);
  else if (f.search) f.query.search = f.search;
  if (f.hook.length > MAX_FILTER_CHARS) problems.push(`hook must be at most ${MAX_FILTER_CHARS} characters`);
  else if (f.hook) f.query.hook = f.hook;
  const statusRule = f.status ? statusProblem(f.status) : undefined;
  if (statusRule) problems.push(`status ${statusRule}`);
  else if (f.status) f.query.status = f.status;
  const window = SINCE_WINDOWS[f.since];
  if (f.since && !window) problems.push(`since must be one of ${Object.keys(SINCE_WINDOWS).join(", ")}`);
  else if (window) f.query.since = new Date(now - window.ms).toISOString();
  const beforeRule = f.before ? beforeProblem(f.before) : undefined;
  if (beforeRule) problems.push(`before ${beforeRule}`);
  else if (f.before) f.query.before = f.before;
  if (problems.length > 0) f.problem = `${problems.join("; ")}.`;
  return f;
}

/** The query string of the filters as typed (without `before`), for the next page's link. */
export function filterQueryString(f: Pick<DeliveryFilters, "search" | "hook" | "status" | "since">): string {
  const p = new URLSearchParams();
  if (f.search) p.set("search", f.search);
  if (f.hook) p.set("hook", f.hook);
  if (f.status) p.set("status", f.status);
  if (f.since) p.set("since", f.since);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** The live feed's query string: only the filters that were valid and that the feed applies (hook, status). */
export function liveQueryString(f: Pick<DeliveryFilters, "query">): string {
  const p = new URLSearchParams();
  if (f.query.hook !== undefined) p.set("hook", f.query.hook);
  if (f.query.status !== undefined) p.set("status", f.query.status);
  const s = p.toString();
  return s ? `?${s}` : "";
}

/** True when a delivery passes the hook and status filters (the live feed's check). */
export function matchesFilters(d: { hook?: string; status: number }, query: DeliveryQuery): boolean {
  if (query.hook !== undefined && d.hook !== query.hook) return false;
  const range = query.status !== undefined ? statusRange(query.status) : undefined;
  if (range) return d.status >= range[0] && d.status <= range[1];
  return true;
}
