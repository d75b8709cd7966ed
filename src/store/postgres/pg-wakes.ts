/**
 * Wakes a receiver stored for the consumer's main session (SPEC §16 "Wakes stored by a
 * receiver reach the consumer's main session the same way"): the consumer takes the
 * oldest under a lease (`FOR UPDATE SKIP LOCKED`), hands them to its host and then
 * deletes them (`ack`). A consumer that dies between the two leaves them to be taken
 * again when the lease expires: a wake is handed at least once, and the host's dedupe
 * key (the wake's id) drops a second copy.
 *
 * @example
 *   const taken = await wakes.take({ owner, leaseMs: 30_000, limit: 100 });
 *   for (const w of taken) await host.enqueue(w.event);
 *   await wakes.ack(taken.map((w) => w.id));
 */
import type { StoredWake, StoredWakes } from "../../core/store-port";
import type { PgPool } from "./pg-pool";
import { PG_SCHEMA as S } from "./pg-schema";

export interface PgWakes extends StoredWakes {
  pending(): Promise<number>;
}

export function createPgWakes(pool: PgPool): PgWakes {
  return {
    async take({ owner, leaseMs, limit }) {
      const { rows } = await pool.query<{ id: string; seq: string; event: string; created_at: string }>(
        `WITH c AS (
           SELECT seq FROM ${S}.wakes WHERE lease_until IS NULL OR lease_until < now() ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
         UPDATE ${S}.wakes t SET lease_owner = $1, lease_until = now() + ($2::bigint * interval '1 millisecond')
         FROM c WHERE t.seq = c.seq
         RETURNING t.id, t.seq, t.event, t.created_at`,
        [owner, leaseMs, limit],
      );
      return rows
        .map((r) => ({ id: r.id, seq: Number(r.seq), event: JSON.parse(r.event) as Record<string, unknown>, createdAt: Number(r.created_at) }))
        .sort((a, b) => a.seq - b.seq);
    },
    async ack(ids) {
      if (ids.length === 0) return;
      await pool.query(`DELETE FROM ${S}.wakes WHERE id = ANY($1::text[])`, [ids]);
    },
    async pending() {
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${S}.wakes`);
      return Number(rows[0]?.n ?? 0);
    },
  };
}
