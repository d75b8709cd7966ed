/**
 * The read and replay routes below `hooks.path` (SPEC §7, §11), reached after the
 * same stages as every route (credentials and throttle, route and method, auth,
 * shutdown, rate limiter):
 *
 *   GET  runs/<id>                → { ok, run }
 *   GET  runs?limit=&status=      → { ok, runs: [...] } newest first
 *   GET  deliveries?limit=&before=&hook=&status=&since= → { ok, deliveries: [...] } newest first
 *   GET  deliveries/<id>          → { ok, delivery: { ..., headers, body | bodyBase64, response } }
 *   POST deliveries/<id>/replay   → the answer a fresh request gets today, with X-Delivery-Id
 *   POST deliveries/replay?hook=&status=&since=&search=          → { ok, preview: { count, confirm, … } } (nothing replayed)
 *   POST deliveries/replay?hook=&status=&since=&search=&confirm= → { ok, replay: { count, replayed: [...] } } (src/intake/bulk-replay.ts)
 *
 * None of these requests is recorded in the ledger (the replay's new delivery is).
 * A store that cannot be read answers 503 `storage_unavailable`.
 */
import { hookErrors, HookError } from "../../core/errors";
import { STORAGE_RETRY_AFTER_SECONDS, storageFaultCode } from "../../core/storage-fault";
import type { HookResponse, RunLookup } from "../../core/ports";
import type { ModuleLogger } from "../../core/logger";
import type { LedgerStore } from "../../store/ledger-store";
import type { LedgerListQuery, StoredDelivery } from "../../store/ledger-rows";
import type { DeliverySummary } from "../../core/inspection";
import type { RunStatus, RunView } from "../../core/runs";
import type { RunLister } from "../../store/run-list";
import type { SecretValues } from "../../host-contract/redaction";
import type { LedgerRoute } from "../../core/hook-route";
import { lookupRun } from "../run-status";
import { parseDeliveryQuery, parseRunQuery } from "./ledger-query";
import type { BulkReplayer } from "../../core/bulk-replay";

export interface ReplayOutcome {
  /** Id of the new delivery (its `replayOf` is the original). */
  deliveryId: string;
  /** The answer a fresh request would get today (an error as its rendered body). */
  response: HookResponse;
}

/** Replays a stored delivery (src/intake/replay.ts). Throws a HookError (404 / 409) when it cannot be replayed; otherwise answers like the pipeline. */
export type Replayer = (id: string, client: string) => Promise<ReplayOutcome>;

/**
 * The reads of the ledger routes where the store is remote (SPEC §16: the Postgres store's
 * ledger and runs, pg-ledger.ts, pg-runs.ts); without them the routes read `store` and `runs`.
 */
export interface LedgerReads {
  list(query: LedgerListQuery): Promise<DeliverySummary[] | undefined>;
  get(id: string): Promise<StoredDelivery | undefined>;
  runs(query: { limit: number; status?: RunStatus }): Promise<RunView[]>;
}

/** The ledger as the router needs it (created with the store, src/plugin/hooks-runtime.ts). */
export interface LedgerAccess {
  store: LedgerStore;
  runs: RunLister;
  /** Asynchronous reads of a remote store, used by the routes instead of `store` and `runs`. */
  reads?: LedgerReads;
  replay: Replayer;
  /** Bulk replay by filter (src/intake/bulk-replay.ts), through `replay`. */
  bulkReplay: BulkReplayer;
  /** Lower-case header names redacted besides the credential rule (configured `verify.header`s). */
  hiddenHeaders: ReadonlySet<string>;
  /** Configured secrets (hook token, verify secrets, Meta verify tokens) hidden wherever they appear in a stored URL or header. */
  secrets?: SecretValues;
}

/**
 * The ledger of a host that keeps none, passed visibly as the pipeline's `ledger`: nothing is recorded;
 * `runs` and `deliveries` list nothing, a delivery and its replay are 404 `delivery_not_found`, a bulk
 * replay 503 `storage_unavailable`.
 */
export const NO_LEDGER = Symbol("no delivery ledger");
export type NoLedger = typeof NO_LEDGER;

/** Header carrying the id of the delivery a replay recorded. */
export const DELIVERY_ID_HEADER = "X-Delivery-Id";

export interface LedgerRouteDeps {
  ledger?: LedgerAccess;
  runs?: RunLookup;
  logger: ModuleLogger;
}

/** A read of the store; a failure (disk, damaged table, Postgres down) becomes 503 `storage_unavailable` (a storage fault's with `Retry-After`), logged without content. */
async function read<T>(logger: ModuleLogger, what: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof HookError) throw e;
    logger.error(`${what} could not be read`, { error: (e as Error).message, code: (e as { code?: string }).code });
    // The storage failed (a disk, Postgres down): retryable, as a write's storage_unavailable is.
    throw hookErrors.ledgerUnreadable(storageFaultCode(e) ? { cause: e, headers: { "Retry-After": String(STORAGE_RETRY_AFTER_SECONDS) } } : { cause: e });
  }
}

/** Answers one ledger route; throws HookErrors like the rest of the pipeline. */
export async function serveLedgerRoute(route: LedgerRoute, query: Record<string, string>, client: string, deps: LedgerRouteDeps): Promise<HookResponse> {
  const { ledger, logger } = deps;
  // A damaged run row keeps its 500 internal_error (DamagedRunError), as before the ledger.
  if (route.kind === "run") return lookupRun(deps.runs, route.runId);
  if (route.kind === "runs") {
    const q = parseRunQuery(query);
    if (!q.ok) throw q.error;
    if (!ledger) return { status: 200, body: { ok: true, runs: [] } };
    const reads = ledger.reads;
    return { status: 200, body: { ok: true, runs: await read(logger, "the run list", () => (reads ? reads.runs(q.value) : ledger.runs.list(q.value))) } };
  }
  if (route.kind === "deliveries") {
    const q = parseDeliveryQuery(query);
    if (!q.ok) throw q.error;
    const deliveries = ledger ? await read(logger, "the delivery ledger", () => (ledger.reads ? ledger.reads.list(q.value) : ledger.store.list(q.value))) : [];
    if (!deliveries) throw hookErrors.queryParameterInvalid({ name: "before", rule: "names no delivery in the ledger (unknown, or pruned)" });
    return { status: 200, body: { ok: true, deliveries } };
  }
  if (route.kind === "delivery") {
    const found = ledger
      ? await read(logger, "the delivery ledger", () => (ledger.reads ? ledger.reads.get(route.id) : ledger.store.get(route.id)))
      : undefined;
    if (!found) throw hookErrors.deliveryNotFound();
    const { rawBody: _raw, bodyStored: _stored, ...delivery } = found;
    return { status: 200, body: { ok: true, delivery } };
  }
  if (route.kind === "bulkReplay") {
    if (!ledger) throw hookErrors.ledgerUnreadable();
    const bulk = ledger.bulkReplay;
    if (query.confirm === undefined) return { status: 200, body: { ok: true, preview: await read(logger, "the delivery ledger", () => bulk.preview(query)) } };
    return { status: 200, body: { ok: true, replay: await read(logger, "the deliveries to replay", () => bulk.replay(query, client)) } };
  }
  if (!ledger) throw hookErrors.deliveryNotFound();
  // The replay answers the pipeline's own errors in its response; what escapes is a HookError (404/409) or a failed read.
  const replayed = await ledger.replay(route.id, client).catch((e: unknown) =>
    read(logger, "the delivery to replay", () => {
      throw e;
    }),
  );
  const response = replayed.response;
  return { ...response, headers: { ...(response.headers ?? {}), [DELIVERY_ID_HEADER]: replayed.deliveryId } };
}
