/**
 * Durable idempotency (SPEC §7): a request carrying a key runs at most once per
 * (scope, key) within `hooks.idempotency.ttlSeconds`, across restarts.
 *
 * - First request: a `pending` record (with the body hash) is committed, the
 *   handler runs, and a storable response completes the record.
 * - Repeat with the same body hash: the stored status/body/headers come back with
 *   `replayed: true` (and an `Idempotent-Replayed: true` header); the handler is
 *   not called.
 * - Repeat with another body hash: rejects with HookError `idempotency_key_reused` (422).
 * - Concurrent duplicates (same key while the first is in flight, same process):
 *   they wait for the first and get its outcome; the handler runs once. "In flight"
 *   is known process-wide per database file (src/store/keys-in-flight.ts), so this
 *   holds across two instances of the plugin on one database — a host reloading the
 *   plugin in place: a duplicate reaching the new instance while the old one handles
 *   the key waits for it, then answers from what it stored (the old instance's own
 *   error, e.g. its store closed by the reload, is not the duplicate's answer).
 *
 * Stored responses are the 2xx ones only (200 wake, 202 run, 204 skip). Errors are
 * not stored and free the key again: no 4xx has an effect, and 5xx/503 must stay
 * retryable. Concurrent waiters still share the first request's error outcome.
 * Except when runs were stored under the key before the handler failed (a fan-out
 * whose runs were stored and whose wake was then refused): the record is completed
 * from them, as after a crash, so the retry replays them instead of running them twice.
 *
 * Crash safety: a run accepted under a key carries `runIdempotencyKey(scope, key)`;
 * a `pending` record left by a crash — no open connection of this process handles
 * it — is completed from that run (or dropped when no run exists) when the database
 * is next opened (see database.ts), or when a request meets it.
 *
 * @example
 *   const guard = createIdempotencyGuard({ ttlSeconds: 86400, database: db, logger });
 *   const res = await guard.handle({ scope: "agent", key, bodyHash }, () => acceptAgent());
 */
import type { HookResponse, IdempotencyGuard } from "../../core/ports";
import type { ModuleLogger } from "../../core/logger";
import { hookErrors } from "../../core/errors";
import { storageFaultCode, storageUnavailable } from "../../core/storage-fault";
import type { PluginDatabase } from "../../store/database";
import { createIdempotencyStore, runIdempotencyKey, type IdempotencyStore } from "../../store/idempotency-store";
import { keysInFlight, type KeyInFlight } from "../../store/keys-in-flight";

export { runIdempotencyKey } from "../../store/idempotency-store";

/** Header added to every replayed response. */
export const REPLAYED_HEADER = "Idempotent-Replayed";

export interface IdempotencyGuardOptions {
  ttlSeconds: number;
  /** The open plugin database. */
  database: PluginDatabase;
  logger: ModuleLogger;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Minimum time between purges of expired records (done lazily on use). Default 60000. */
  purgeIntervalMs?: number;
  /** Which handler responses are stored for replay. Default: 2xx only. */
  isStorable?: (response: HookResponse) => boolean;
  /** `Retry-After` of the `shutting_down` answer when the store is already closed. Default 5. */
  shutdownRetryAfterSeconds?: number;
}

/** Default storage rule: only successful (2xx) responses are replayed. */
export function isStorableResponse(response: HookResponse): boolean {
  return response.status >= 200 && response.status < 300;
}

type Outcome = { response: HookResponse; stored: boolean };

interface InFlight extends KeyInFlight {
  /** The connection of the request (another instance's when the host runs two on this database). */
  holder: PluginDatabase;
  bodyHash: string;
  outcome: Promise<Outcome>;
  /** When the key expires (a completion still being committed does not outlive it). */
  expiresAt: number;
}

/** A stored answer as a repeat gets it: a copy, with `Idempotent-Replayed: true`. */
export function replay(response: HookResponse): HookResponse & { replayed: true } {
  const out: HookResponse & { replayed: true } = {
    status: response.status,
    headers: { ...(response.headers ?? {}), [REPLAYED_HEADER]: "true" },
    replayed: true,
  };
  if (response.body !== undefined) out.body = structuredClone(response.body);
  return out;
}

function copy(response: HookResponse): HookResponse {
  const out: HookResponse = { status: response.status };
  if (response.headers) out.headers = { ...response.headers };
  if (response.body !== undefined) out.body = structuredClone(response.body);
  return out;
}

export function createIdempotencyGuard(options: IdempotencyGuardOptions): IdempotencyGuard {
  const { logger } = options;
  const clock = options.clock ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  const purgeIntervalMs = options.purgeIntervalMs ?? 60_000;
  const isStorable = options.isStorable ?? isStorableResponse;
  // Shared by every instance of the plugin in this process on this database file (keys-in-flight.ts).
  const inFlight = keysInFlight<InFlight>(options.database.file);
  let lastPurge = Number.NEGATIVE_INFINITY;

  let store: IdempotencyStore | undefined;
  const storeFor = (database: PluginDatabase): IdempotencyStore => (store ??= createIdempotencyStore(database.db));

  /** Runs a write on the store now, tolerating a database closed by shutdown meanwhile. */
  const settle = (database: PluginDatabase, what: string, fn: (store: IdempotencyStore) => void): void => {
    try {
      if (!database.isOpen) throw new Error("database closed");
      fn(storeFor(database));
    } catch (e) {
      logger.warn("idempotency record not settled; it is resolved at the next start", { step: what, error: (e as Error).message });
    }
  };

  /**
   * Completes a record with the turn's group commit; the answer waits for it, so a
   * kill -9 after the answer leaves the record complete (a wake, or a mapping's own
   * `response`, has nothing else to be recovered from). Until it is committed the
   * request stays in flight, so a repeat meanwhile gets the replay. A commit that
   * fails is logged: the effect is stored, so the answer is still the 2xx, and the
   * record left pending is resolved at the next start.
   */
  const complete = async (database: PluginDatabase, scope: string, key: string, response: HookResponse, done: () => void): Promise<void> => {
    if (!database.isOpen) {
      settle(database, "complete", () => undefined);
      done();
      return;
    }
    const store = storeFor(database);
    await database.batch
      .stage(() => store.complete(scope, key, response))
      .catch((e: unknown) => logger.warn("idempotency record not settled; it is resolved at the next start", { step: "complete", error: (e as Error).message }))
      .finally(done);
  };

  const guard: IdempotencyGuard = {
    async handle(input, handler) {
      const { scope, key, bodyHash } = input;
      const id = runIdempotencyKey(scope, key);

      const database = options.database;
      const current = inFlight.get(id);
      if (current && current.holder.isOpen && current.expiresAt > clock()) {
        if (current.bodyHash !== bodyHash) {
          logger.warn("idempotency key reused with a different body", { scope, key });
          throw hookErrors.idempotencyKeyReused({ scope });
        }
        if (current.holder !== database) {
          // Another instance on this database (a reload in place) handles the key: once it settled, what it stored answers.
          logger.info("duplicate request waits for another instance of the plugin", { scope, key });
          await current.outcome.catch(() => undefined);
          return guard.handle(input, handler);
        }
        logger.debug("duplicate request waits for the first", { scope, key });
        const outcome = await current.outcome;
        return outcome.stored ? replay(outcome.response) : copy(outcome.response);
      }

      if (!database.isOpen) throw hookErrors.shuttingDown({ headers: { "Retry-After": String(options.shutdownRetryAfterSeconds ?? 5) } });
      const store = storeFor(database);
      const now = clock();
      if (now - lastPurge >= purgeIntervalMs) {
        lastPurge = now;
        const purged = store.purgeExpired(now);
        if (purged > 0) logger.debug("expired idempotency records purged", { count: purged });
      }

      let record = store.get(scope, key);
      if (record && record.expiresAt <= now) {
        store.remove(scope, key);
        record = undefined;
      }
      // Pending with no request of an open connection of this process in flight: left by a crash (or by a connection closed since).
      if (record?.state === "pending") record = store.resolvePending(scope, key);
      if (record) {
        if (record.bodyHash !== bodyHash) {
          logger.warn("idempotency key reused with a different body", { scope, key });
          throw hookErrors.idempotencyKeyReused({ scope });
        }
        logger.info("idempotent replay", { scope, key, status: record.response!.status });
        return replay(record.response!);
      }

      let resolveOutcome!: (o: Outcome) => void;
      let rejectOutcome!: (e: unknown) => void;
      const outcome = new Promise<Outcome>((res, rej) => {
        resolveOutcome = res;
        rejectOutcome = rej;
      });
      outcome.catch(() => undefined); // waiters observe it; no unhandled rejection when there are none
      // In flight from here: a duplicate arriving while the pending record is being committed waits for this one.
      const mine: InFlight = { holder: database, bodyHash, outcome, expiresAt: now + ttlMs };
      inFlight.set(id, mine);
      // Only this request's entry: once this connection closed, another instance may hold the key.
      const release = () => {
        if (inFlight.get(id) === mine) inFlight.delete(id);
      };
      try {
        // Committed with the turn's group commit before the handler runs (crash recovery relies on it).
        await database.batch.stage(() => store.insertPending({ scope, key, bodyHash, createdAt: now, expiresAt: now + ttlMs }));
      } catch (e) {
        release();
        const fault = storageFaultCode(e);
        if (fault) logger.error("idempotency key not recorded; request refused", { scope, code: "storage_unavailable", cause: fault });
        const refusal = fault ? storageUnavailable(e) : e;
        rejectOutcome(refusal);
        throw refusal;
      }

      let response: HookResponse;
      try {
        response = await handler();
      } catch (e) {
        // Runs stored before the refusal (a fan-out whose wake failed) complete the record, so the retry replays them.
        settle(database, "resolve", (s) => s.resolvePending(scope, key));
        release();
        rejectOutcome(e);
        throw e;
      }
      const stored = isStorable(response);
      if (stored) await complete(database, scope, key, response, release);
      else {
        // Not stored: the key is free again at once (the retry of a refused request runs).
        settle(database, "remove", (s) => s.remove(scope, key));
        release();
      }
      resolveOutcome({ response: copy(response), stored });
      return response;
    },
  };
  return guard;
}
