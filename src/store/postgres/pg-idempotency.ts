/**
 * Idempotency records in Postgres (SPEC §7, §16): written with the request's effect and
 * its answer by the group commit (pg-accept.ts) — so there is never a pending record,
 * and nothing to recover after a crash — read here before a request is handled (a
 * repeat answered from the record without a write), and purged when expired, in small
 * batches.
 *
 * @example
 *   const rec = await keys.get("agent", "evt-1"); // undefined, or the stored answer
 */
import type { IdempotencyRecord } from "../idempotency-store";
import type { PgPool } from "./pg-pool";
import { PG_SCHEMA as S } from "./pg-schema";
import { pgText } from "./pg-text";
import { pgIdempotencyRecord, type PgIdempotencyRow } from "./pg-rows";

export interface PgIdempotency {
  /** The record of (scope, key) unless it expired at `now`. */
  get(scope: string, key: string, now: number): Promise<IdempotencyRecord | undefined>;
  /** Deletes records expired at `now`, `batch` per statement; returns how many. */
  purgeExpired(now: number, batch?: number): Promise<number>;
}

export function createPgIdempotency(pool: PgPool): PgIdempotency {
  return {
    async get(scope, key, now) {
      const { rows } = await pool.query<PgIdempotencyRow>(`SELECT * FROM ${S}.idempotency_keys WHERE scope = $1 AND key = $2 AND expires_at > $3`, [
        pgText(scope),
        pgText(key),
        now,
      ]);
      return rows[0] ? pgIdempotencyRecord(rows[0]) : undefined;
    },
    async purgeExpired(now, batch = 1000) {
      let removed = 0;
      for (;;) {
        const { rowCount } = await pool.query(
          `DELETE FROM ${S}.idempotency_keys WHERE (scope, key) IN (SELECT scope, key FROM ${S}.idempotency_keys WHERE expires_at <= $1 LIMIT $2)`,
          [now, batch],
        );
        removed += rowCount ?? 0;
        if ((rowCount ?? 0) < batch) return removed;
      }
    },
  };
}
