/**
 * Query parameters of `GET {path}/deliveries` and `GET {path}/runs` (SPEC §11).
 * `search` and `before` follow the host contract's rules (searchProblem, beforeProblem). Every value is checked; a bad or unknown parameter is a 400 `invalid_request`
 * naming it and its rule. `token` is the (deprecated) hook-token carrier and is
 * accepted everywhere. Repeated parameters count by their first value.
 *
 * @example parseDeliveryQuery({ limit: "20", status: "4xx" }) // ok: { limit: 20, status: [400, 499] }
 */
import { err, hookErrors, ok, type HookError, type Result } from "../../core/errors";
import { TERMINAL_RUN_STATUSES, type RunStatus } from "../../core/runs";
import type { LedgerListQuery } from "../../store/ledger-store";
import { BULK_FILTER_PARAMS, type BulkReplayFilter } from "../../core/bulk-replay";
import { beforeProblem, MAX_SEARCH_TERMS, searchTermsOver, searchWordsProblem, statusProblem, statusRange } from "../../core/inspection";

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 500;
const RUN_STATUSES: readonly RunStatus[] = ["queued", "running", ...TERMINAL_RUN_STATUSES];
const MAX_HOOK_FILTER_LENGTH = 200;

const invalidParameter = (name: string, rule: string): Result<never> =>
  err(hookErrors.queryParameterInvalid({ name, rule }, { details: [{ field: name, message: `${name} ${rule}` }] }));

function unknownParameter(query: Record<string, string>, accepted: readonly string[]): HookError | undefined {
  const unknown = Object.keys(query).find((k) => k !== "token" && !accepted.includes(k));
  return unknown === undefined ? undefined : hookErrors.queryParameterUnknown({ name: unknown.slice(0, 100), accepted: accepted.join(", ") });
}

function parseLimit(raw: string | undefined): Result<number> {
  if (raw === undefined) return ok(DEFAULT_LIST_LIMIT);
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_LIST_LIMIT)
    return invalidParameter("limit", `must be a whole number from 1 to ${MAX_LIST_LIMIT}`);
  return ok(Number(raw));
}

/** ms since the epoch of an ISO-8601 time on a day that exists (Date.parse takes 2026-02-30 as 2 March). */
function existingDayTimeMs(raw: string): number | undefined {
  const day = /^(\d{4})-(\d\d)-(\d\d)T/.exec(raw);
  const t = day ? Date.parse(raw) : NaN;
  if (!day || Number.isNaN(t)) return undefined;
  const [year, month, date] = [Number(day[1]), Number(day[2]), Number(day[3])];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return month >= 1 && month <= 12 && date >= 1 && date <= daysInMonth ? t : undefined;
}

const DELIVERY_PARAMS = ["limit", "before", "hook", "status", "since", "search"] as const;

export function parseDeliveryQuery(query: Record<string, string>): Result<LedgerListQuery> {
  const unknown = unknownParameter(query, DELIVERY_PARAMS);
  if (unknown) return err(unknown);
  const limit = parseLimit(query.limit);
  if (!limit.ok) return limit;
  const out: LedgerListQuery = { limit: limit.value };
  if (query.before !== undefined) {
    const problem = beforeProblem(query.before);
    if (problem) return invalidParameter("before", problem);
    out.before = query.before;
  }
  if (query.hook !== undefined) {
    if (query.hook === "" || query.hook.length > MAX_HOOK_FILTER_LENGTH)
      return invalidParameter("hook", `must be a hook name of 1 to ${MAX_HOOK_FILTER_LENGTH} characters`);
    out.hook = query.hook;
  }
  if (query.status !== undefined) {
    const range = statusRange(query.status);
    if (!range) return invalidParameter("status", statusProblem(query.status)!);
    out.status = range;
  }
  if (query.since !== undefined) {
    const t = existingDayTimeMs(query.since);
    if (t === undefined) return invalidParameter("since", "must be an ISO-8601 time such as 2026-01-31T12:00:00Z");
    out.since = t;
  }
  if (query.search !== undefined) {
    const problem = searchWordsProblem(query.search);
    if (problem) return invalidParameter("search", problem);
    const terms = searchTermsOver(query.search);
    if (terms !== undefined) return err(hookErrors.searchTooManyTerms({ terms, max: MAX_SEARCH_TERMS }));
    out.search = query.search;
  }
  return ok(out);
}

export interface BulkReplayQuery {
  filter: BulkReplayFilter;
  /** The filter read by the listing's rules (its `limit` is the caller's to set). */
  list: LedgerListQuery;
  /** The preview's confirm value; absent: this is the preview. */
  confirm?: string;
}

/**
 * The query of a bulk replay: the listing's filter (`hook`, `status`, `since`, `search`, read by
 * parseDeliveryQuery: one grammar) and `confirm`; `limit` and `before` are not taken (a bulk replay
 * takes every match), and a bulk replay without a filter is refused.
 */
export function parseBulkReplayQuery(query: Record<string, string>): Result<BulkReplayQuery> {
  const unknown = unknownParameter(query, [...BULK_FILTER_PARAMS, "confirm"]);
  if (unknown) return err(unknown);
  const filter: BulkReplayFilter = {};
  for (const k of BULK_FILTER_PARAMS) if (query[k] !== undefined) filter[k] = query[k];
  if (Object.keys(filter).length === 0) return err(hookErrors.bulkReplayNeedsFilter());
  const list = parseDeliveryQuery(filter);
  if (!list.ok) return list;
  return ok({ filter, list: list.value, ...(query.confirm !== undefined ? { confirm: query.confirm } : {}) });
}

export function parseRunQuery(query: Record<string, string>): Result<{ limit: number; status?: RunStatus }> {
  const unknown = unknownParameter(query, ["limit", "status"]);
  if (unknown) return err(unknown);
  const limit = parseLimit(query.limit);
  if (!limit.ok) return limit;
  if (query.status === undefined) return ok({ limit: limit.value });
  const status = RUN_STATUSES.find((s) => s === query.status);
  if (!status) return invalidParameter("status", `must be one of ${RUN_STATUSES.join(", ")}`);
  return ok({ limit: limit.value, status });
}
