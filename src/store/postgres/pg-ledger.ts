/**
 * The delivery ledger in Postgres (SPEC §11, §16): rows are written by the group commit
 * (pg-accept.ts) with the request's effect; this module reads them, indexes them for
 * search and prunes them.
 *
 * - **Search** (pg-search.ts) reads a `tsvector` that the indexer fills after the write,
 *   in small batches (`FOR UPDATE SKIP LOCKED`: several receivers index without waiting for
 *   each other), never on the accept path. A row is searchable within one indexer period.
 * - **Pruning**, as the SQLite ledger's rule (ledger-prune.ts): by age, refused rows to
 *   their share of `maxEntries` (oldest first), then the oldest beyond `maxEntries` —
 *   each as `DELETE … WHERE seq IN (SELECT … LIMIT batch)` statements of their own, so
 *   no prune holds a long lock or a long transaction, however much is due.
 *
 * @example
 *   const ledger = createPgLedger(pool);
 *   await ledger.list({ limit: 50, search: "push" });
 */
import type { DeliverySummary } from "../../core/inspection";
import { SEARCH_BODY_CHARS } from "../migrations";
import { SUMMARY_COLUMNS, toDeliverySummary, toStoredDelivery, type LedgerListQuery, type StoredDelivery } from "../ledger-rows";
import { DAY_MS, refusedShare } from "../ledger-prune";
import type { PgPool } from "./pg-pool";
import { PG_SCHEMA as S } from "./pg-schema";
import { pgText } from "./pg-text";
import { searchTokens, tsQuery } from "./pg-search";
import { toDeliveryRow, type PgDeliveryRow } from "./pg-rows";

export interface PgLedger {
  /** Newest first; undefined when `before` names no delivery. */
  list(query: LedgerListQuery): Promise<DeliverySummary[] | undefined>;
  get(id: string): Promise<StoredDelivery | undefined>;
  deliveryOfRun(runId: string): Promise<string | undefined>;
  count(): Promise<number>;
  lastReceivedAt(): Promise<number | undefined>;
  /** Indexes up to `batch` rows not yet indexed; returns how many. */
  index(batch?: number): Promise<number>;
  /** Deletes rows past the retention and beyond `maxEntries`, `batch` rows per statement; returns how many. */
  prune(opts: { retentionDays: number; maxEntries: number; now: number; batch?: number }): Promise<number>;
}

/** What the index reads of a body: its first SEARCH_BODY_CHARS characters as UTF-8 (invalid bytes as U+FFFD). */
function searchableBody(body: Buffer | null, stored: boolean): string {
  if (!stored || !body) return "";
  return pgText(
    body
      .subarray(0, SEARCH_BODY_CHARS * 4)
      .toString("utf8")
      .slice(0, SEARCH_BODY_CHARS),
  );
}

export function createPgLedger(pool: PgPool): PgLedger {
  /** Deletes what `select` (a query of seqs, `$1` its limit, `$2…` its parameters) finds, in statements of `batch` rows. */
  async function deleteInBatches(select: string, params: unknown[], batch: number, most = Infinity): Promise<number> {
    let removed = 0;
    while (removed < most) {
      const limit = Math.min(batch, most - removed);
      const { rowCount } = await pool.query(`DELETE FROM ${S}.deliveries WHERE seq IN (${select})`, [limit, ...params]);
      removed += rowCount ?? 0;
      if ((rowCount ?? 0) < limit) break;
    }
    return removed;
  }

  const countOf = async (where: string): Promise<number> => {
    const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${S}.deliveries${where}`);
    return Number(rows[0]?.n ?? 0);
  };

  return {
    async list(q) {
      const where: string[] = [];
      const params: unknown[] = [];
      const p = (v: unknown): string => {
        params.push(v);
        return `$${params.length}`;
      };
      if (q.before !== undefined) {
        const { rows } = await pool.query<{ seq: string }>(`SELECT seq FROM ${S}.deliveries WHERE id = $1`, [q.before]);
        if (rows.length === 0) return undefined;
        where.push(`seq < ${p(rows[0]!.seq)}`);
      }
      if (q.hook !== undefined) where.push(`hook = ${p(pgText(q.hook))}`);
      if (q.status !== undefined) where.push(`status BETWEEN ${p(q.status[0])} AND ${p(q.status[1])}`);
      if (q.since !== undefined) where.push(`received_at >= ${p(q.since)}`);
      if (q.until !== undefined) where.push(`received_at <= ${p(q.until)}`);
      // What a replay can run again (bulk replay): the SQLite ledger's rule (ledger-rows.ts).
      if (q.originals === true) where.push("replay_of IS NULL AND NOT refused AND body_stored");
      const match = q.search === undefined ? undefined : tsQuery(q.search);
      if (match !== undefined) where.push(`search @@ to_tsquery('simple', ${p(match)})`);
      const sql = `SELECT ${SUMMARY_COLUMNS} FROM ${S}.deliveries${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ${p(q.limit)}`;
      const { rows } = await pool.query<PgDeliveryRow>(sql, params);
      return rows.map((r) => toDeliverySummary(toDeliveryRow(r)));
    },
    async get(id) {
      const { rows } = await pool.query<PgDeliveryRow>(`SELECT * FROM ${S}.deliveries WHERE id = $1`, [id]);
      return rows[0] ? toStoredDelivery(toDeliveryRow(rows[0])) : undefined;
    },
    async deliveryOfRun(runId) {
      const { rows } = await pool.query<{ id: string }>(`SELECT id FROM ${S}.deliveries WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`, [runId]);
      return rows[0]?.id;
    },
    count: () => countOf(""),
    async lastReceivedAt() {
      const { rows } = await pool.query<{ t: string | null }>(`SELECT max(received_at) AS t FROM ${S}.deliveries`);
      return rows[0]?.t == null ? undefined : Number(rows[0].t);
    },
    async index(batch = 200) {
      return pool.transaction(async (client) => {
        const { rows } = await client.query<{
          seq: string;
          hook: string | null;
          event: string | null;
          status: number;
          body: Buffer | null;
          body_stored: boolean;
        }>(`SELECT seq, hook, event, status, body, body_stored FROM ${S}.deliveries WHERE NOT indexed ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED`, [batch]);
        if (rows.length === 0) return 0;
        const docs = rows.map((r) => ({
          seq: r.seq,
          text: searchTokens([r.hook ?? "", r.event ?? "", String(r.status), searchableBody(r.body, r.body_stored)].join(" ")),
        }));
        await client.query(
          `UPDATE ${S}.deliveries t SET search = to_tsvector('simple', x.text), indexed = true
           FROM json_to_recordset($1::json) AS x(seq bigint, text text) WHERE t.seq = x.seq`,
          [JSON.stringify(docs)],
        );
        return rows.length;
      });
    },
    async prune({ retentionDays, maxEntries, now, batch = 500 }) {
      const share = refusedShare(maxEntries);
      const byAge = await deleteInBatches(
        `SELECT seq FROM ${S}.deliveries WHERE received_at < $2 ORDER BY seq LIMIT $1`,
        [now - retentionDays * DAY_MS],
        batch,
      );
      const rows = await countOf("");
      const refused = await countOf(" WHERE refused");
      // Refused rows beyond their share, then beyond maxEntries in all: theirs is the first eviction.
      const overShare = Math.max(0, refused - share);
      const overAll = Math.max(0, rows - overShare - maxEntries);
      const refusedDue = Math.min(refused, overShare + overAll);
      const byRefused =
        refusedDue > 0 ? await deleteInBatches(`SELECT seq FROM ${S}.deliveries WHERE refused ORDER BY seq LIMIT $1`, [], batch, refusedDue) : 0;
      const excess = rows - byRefused - maxEntries;
      const byCount = excess > 0 ? await deleteInBatches(`SELECT seq FROM ${S}.deliveries ORDER BY seq LIMIT $1`, [], batch, excess) : 0;
      return byAge + byRefused + byCount;
    },
  };
}
