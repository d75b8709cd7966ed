/**
 * Idempotency records in Postgres (SPEC §7, §16): written with the request's effect and
 * its answer by the group commit (pg-accept.ts) — so there is never a pending record,
 * and nothing to recover after a crash — read here before a request is handled (a
 * repeat answered from the record without a write), and purged when expired, in small
 * batches.
 *
 * The reads of one turn of the event loop are one statement (`unnest` of the turn's
 * scopes, keys and times, joined to the table): a round trip per turn, not per keyed
 * request (1.27 statements per keyed 2xx before, bench "the receiver on Postgres"). A
 * read waits at most for the end of the turn it was asked in; a failed statement fails
 * every read in it.
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
  /** Statements the reads have sent so far (for tests and the bench). */
  readonly statements: number;
}

interface Read {
  scope: string;
  key: string;
  now: number;
  resolve(record: IdempotencyRecord | undefined): void;
  reject(e: unknown): void;
}

const READ_TURN = `SELECT k.* FROM ${S}.idempotency_keys k
  JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS r(scope, key, now) ON k.scope = r.scope AND k.key = r.key AND k.expires_at > r.now`;

const recordKeyOf = (scope: string, key: string): string => `${scope}\u0000${key}`;

export function createPgIdempotency(pool: PgPool): PgIdempotency {
  let reads: Read[] = [];
  let statements = 0;
  /** The turn's reads in one statement; each gets its row (or none). */
  const readTurn = async (): Promise<void> => {
    const batch = reads;
    reads = [];
    try {
      const scopes = batch.map((r) => r.scope);
      statements++;
      const { rows } = await pool.query<PgIdempotencyRow>(READ_TURN, [scopes, batch.map((r) => r.key), batch.map((r) => r.now)]);
      const found = new Map(rows.map((row) => [recordKeyOf(row.scope, row.key), row]));
      for (const r of batch) {
        const row = found.get(recordKeyOf(r.scope, r.key));
        r.resolve(row && Number(row.expires_at) > r.now ? pgIdempotencyRecord(row) : undefined);
      }
    } catch (e) {
      for (const r of batch) r.reject(e);
    }
  };
  return {
    get statements() {
      return statements;
    },
    get(scope, key, now) {
      return new Promise((resolve, reject) => {
        if (reads.length === 0) setImmediate(() => void readTurn());
        reads.push({ scope: pgText(scope), key: pgText(key), now, resolve, reject });
      });
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
