/**
 * Idempotency over the Postgres store (SPEC §7, §16): a key runs at most once per
 * (scope, key) within the TTL across every receiver behind the balancer, by the unique
 * key of the store's group commit (pg-accept.ts) — not by a lock, nor a pending record.
 *
 * A keyed request is handled with its writes **held back**: the runs and wakes its
 * handler stores (through `receiver`, this module's ReceiverStore) are collected, not
 * staged, and the handler's answer is computed from them (a run's id is known before it
 * is stored). Then the request's idempotency record with that answer, its runs and its
 * wakes are staged as one write of the turn's group commit: one statement, all or none.
 * - Stored: the answer is given (a 2xx means committed).
 * - The key was held (by a request on another receiver, committed or committing at that
 *   moment): nothing of this request was stored; it answers the holder's record — a
 *   replay (`Idempotent-Replayed: true`) with the same body hash, `idempotency_key_reused`
 *   (422) with another.
 * - Postgres unavailable: nothing stored, 503 `storage_unavailable` with `Retry-After`.
 * A record already there when the request arrives is answered from at once (one read).
 * An answer that is not stored for replay (not 2xx) frees the key: writes its handler made
 * anyway are staged without a record.
 *
 * An unkeyed request's writes go straight to the group commit (`pgReceiverStore`).
 *
 * @example
 *   const { guard, receiver } = createPgIdempotencyGuard({ store, ttlSeconds: 86400, logger });
 *   const queue = createRunIntake({ store: receiver, ... }); // keyed requests' runs join their record
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { HookResponse, IdempotencyGuard } from "../../core/ports";
import type { ModuleLogger } from "../../core/logger";
import type { ReceiverStore } from "../../core/store-port";
import { hookErrors } from "../../core/errors";
import { storageFaultCode, storageUnavailable } from "../../core/storage-fault";
import type { IdempotencyRecord } from "../../store/idempotency-store";
import type { PostgresStore } from "../../store/postgres/pg-store";
import type { PgAcceptWrite, PgRunInsert, PgWakeInsert } from "../../store/postgres/pg-accept";
import { pgReceiverStore } from "../../store/postgres/pg-receiver-store";
import { isStorableResponse, replay } from "./idempotency-guard";
import { randomUUID } from "node:crypto";

/** The writes of one keyed request, held until its record is staged with them. */
interface HeldWrites {
  runs: PgRunInsert[];
  wakes: PgWakeInsert[];
}

export interface PgIdempotencyOptions {
  store: PostgresStore;
  ttlSeconds: number;
  logger: ModuleLogger;
  /** ms since the epoch; default Date.now. */
  clock?: () => number;
  /** Minimum time between purges of expired records. Default 60000. */
  purgeIntervalMs?: number;
}

export function createPgIdempotencyGuard(options: PgIdempotencyOptions): { guard: IdempotencyGuard; receiver: ReceiverStore } {
  const { store, logger } = options;
  const clock = options.clock ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  const purgeIntervalMs = options.purgeIntervalMs ?? 60_000;
  const held = new AsyncLocalStorage<HeldWrites>();
  const direct = pgReceiverStore(store, clock);
  let lastPurge = Number.NEGATIVE_INFINITY;

  /** A failure of Postgres as the 503 it answers (logged without content); anything else as it was. */
  const refusal = (e: unknown, scope: string, what: string): unknown => {
    const fault = storageFaultCode(e);
    if (!fault) return e;
    logger.error(`${what}; request refused`, { scope, code: "storage_unavailable", cause: fault });
    return storageUnavailable(e);
  };

  /** The record's answer for a request with `bodyHash`: a replay, or `idempotency_key_reused`. */
  const answerFrom = (record: IdempotencyRecord, scope: string, key: string, bodyHash: string): HookResponse & { replayed: true } => {
    if (record.bodyHash !== bodyHash) {
      logger.warn("idempotency key reused with a different body", { scope, key });
      throw hookErrors.idempotencyKeyReused({ scope });
    }
    logger.info("idempotent replay", { scope, key, status: record.response!.status });
    return replay(record.response!);
  };

  const purgeSometimes = (now: number): void => {
    if (now - lastPurge < purgeIntervalMs) return;
    lastPurge = now;
    void store.idempotency
      .purgeExpired(now)
      .then((n) => n > 0 && logger.debug("expired idempotency records purged", { count: n }))
      .catch((e: unknown) => logger.warn("purging expired idempotency records failed; tried again later", { error: (e as Error).message }));
  };

  const guard: IdempotencyGuard = {
    async handle({ scope, key, bodyHash }, handler) {
      const now = clock();
      purgeSometimes(now);
      let existing: IdempotencyRecord | undefined;
      try {
        existing = await store.idempotency.get(scope, key, now);
      } catch (e) {
        throw refusal(e, scope, "idempotency key not read");
      }
      if (existing) return answerFrom(existing, scope, key, bodyHash);
      const writes: HeldWrites = { runs: [], wakes: [] };
      const response = await held.run(writes, handler);
      const effect: PgAcceptWrite = { runs: writes.runs, wakes: writes.wakes };
      const storable = isStorableResponse(response);
      if (!storable && writes.runs.length + writes.wakes.length === 0) return response;
      const write: PgAcceptWrite = storable ? { ...effect, idempotency: { scope, key, bodyHash, response, createdAt: now, expiresAt: now + ttlMs } } : effect;
      let result;
      try {
        result = await store.accept.stage(write);
      } catch (e) {
        throw refusal(e, scope, "idempotency key and its request not stored");
      }
      if (result.kind === "conflict") return answerFrom(result.record, scope, key, bodyHash);
      return response;
    },
  };

  const receiver: ReceiverStore = {
    async storeRuns(runs) {
      const writes = held.getStore();
      if (!writes) return direct.storeRuns(runs);
      for (const r of runs) {
        writes.runs.push({
          id: r.id,
          action: r.action,
          source: r.source,
          createdAt: r.createdAt,
          ...(r.idempotencyKey !== undefined ? { idempotencyKey: r.idempotencyKey } : {}),
        });
      }
      // Stored with the request's record once its answer is known; the arrival sequence is the store's then.
      return runs.map((r) => ({ ...r, seq: 0 }));
    },
    async storeWake(event) {
      const writes = held.getStore();
      if (!writes) return direct.storeWake(event);
      writes.wakes.push({ id: randomUUID(), event, createdAt: clock() });
    },
    get: (id) => direct.get(id),
    countQueued: () => direct.countQueued(),
  };
  return { guard, receiver };
}
