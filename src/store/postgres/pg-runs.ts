/**
 * The runs of the Postgres store as a consumer takes them (SPEC §16): a run is
 * **claimed** under a lease — `FOR UPDATE SKIP LOCKED`, so consumers never wait for
 * each other and never take the same run — only when it is the oldest queued run of its
 * session key and no run of that key is running: one at a time per session key, in
 * arrival order (`seq`). A partial unique index (`runs_one_running_per_session`) makes
 * the database itself refuse a second running run of a key, whatever a consumer does.
 *
 * The consumer renews its leases while its runs go on; every later write of a run names
 * the lease's owner, so a consumer whose lease expired (it was presumed dead) can no
 * longer write the run: its `finish` answers false. A run whose lease expired is taken
 * over by `reclaimExpired` and follows §7's rule (`interrupted`, or queued again with
 * `retryInterrupted`) — never run by two consumers at once.
 *
 * Leases use the database's clock (`now()`), the one clock all consumers share, and so does
 * a claimed run's `started_at`: the claim's own `now()`, taken once it holds its connection
 * (a time taken by the caller before the query could be earlier than the claim itself on a
 * busy pool), written as the column holds every time (ISO-8601 UTC, milliseconds, `Z`).
 *
 * @example
 *   const runs = createPgRuns(pool, { logger });
 *   const [run] = await runs.claim({ owner, leaseMs: 30_000, limit: 1 });
 *   await runs.finish(run.id, owner, { status: "succeeded", finishedAt, summary });
 */
import type { ModuleLogger } from "../../core/logger";
import type { ClaimedRuns, RunPatch } from "../../core/store-port";
import { toRunView, type RunRecord, type RunStatus, type RunView } from "../../core/runs";
import type { PgPool } from "./pg-pool";
import { PG_SCHEMA as S } from "./pg-schema";
import { pgText } from "./pg-text";
import { parsePgRun, type PgRunRow } from "./pg-rows";
import { LISTING_COLUMNS, listingView, type ListingRow } from "../run-list";

const PATCH_COLUMNS: Record<keyof RunPatch, string> = {
  status: "status",
  startedAt: "started_at",
  finishedAt: "finished_at",
  summary: "summary",
  error: "error",
  summaryPending: "summary_pending",
  attempts: "attempts",
};

export interface PgRunCounts {
  queued: number;
  running: number;
  /** Failed or timed out, finished at or after `since`. */
  failedSince: number;
}

export interface PgRuns extends ClaimedRuns {
  get(id: string): Promise<RunRecord | undefined>;
  /** Newest first, for operators (`GET {path}/runs`). */
  list(query: { limit: number; status?: RunStatus }): Promise<RunView[]>;
  countQueued(): Promise<number>;
  counts(sinceMs: number): Promise<PgRunCounts>;
  /** Deletes finished runs past the retention, then beyond `maxFinished`, `batch` rows per statement; returns how many. */
  prune(opts: { retentionDays: number; maxFinished: number; now: number; batch?: number }): Promise<number>;
}

const lease = (param: string) => `now() + (${param}::bigint * interval '1 millisecond')`;
/** The database's clock as `started_at` holds times: `toISOString()`'s form, `2030-01-01T00:00:01.000Z` (milliseconds truncated). */
const NOW_ISO = `to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** The assignments of a patch, from parameter `$first` on. */
function assignments(patch: RunPatch, first: number): { sets: string[]; values: unknown[] } {
  const sets: string[] = [];
  const values: unknown[] = [];
  for (const field of Object.keys(patch) as Array<keyof RunPatch>) {
    const v = patch[field];
    if (!(field in PATCH_COLUMNS) || v === undefined) continue;
    sets.push(`${PATCH_COLUMNS[field]} = $${first + values.length}`);
    values.push(typeof v === "string" ? pgText(v) : v);
    if (field === "finishedAt") {
      sets.push(`finished_ms = $${first + values.length}`);
      values.push(Date.parse(v as string));
    }
  }
  return { sets, values };
}

const TERMINAL = new Set<RunStatus>(["succeeded", "failed", "timed_out", "interrupted"]);

export function createPgRuns(pool: PgPool, options: { logger: ModuleLogger }): PgRuns {
  const reported = new Set<string>();
  const records = (rows: PgRunRow[]): RunRecord[] =>
    rows.flatMap((row) => {
      const parsed = parsePgRun(row);
      if (parsed.ok) return [parsed.run];
      if (!reported.has(row.id)) {
        reported.add(row.id);
        options.logger.warn(
          `run ${row.id} in the Postgres store (${pool.where}) is damaged (${parsed.problem}) and was skipped; it stays as it is. ` +
            `Inspect it, or remove it with: DELETE FROM ${S}.runs WHERE id = '${row.id}'`,
          { runId: row.id, status: row.status },
        );
      }
      return [];
    });

  /** A write of a run `owner` holds; the lease ends with a terminal status. */
  async function leased(id: string, owner: string, patch: RunPatch, extra: string[] = []): Promise<boolean> {
    const { sets, values } = assignments(patch, 3);
    if (patch.status !== undefined && TERMINAL.has(patch.status)) extra.push("lease_owner = NULL", "lease_until = NULL");
    const all = [...sets, ...extra];
    if (all.length === 0) all.push("lease_owner = lease_owner");
    const { rowCount } = await pool.query(`UPDATE ${S}.runs SET ${all.join(", ")} WHERE id = $1 AND lease_owner = $2 AND status = 'running'`, [
      id,
      owner,
      ...values,
    ]);
    return rowCount === 1;
  }

  return {
    async claim({ owner, leaseMs, limit }) {
      try {
        const { rows } = await pool.query<PgRunRow>(
          `WITH c AS (
             SELECT r.id FROM ${S}.runs r
             WHERE r.status = 'queued'
               AND r.seq = (SELECT min(q.seq) FROM ${S}.runs q WHERE q.session_key = r.session_key AND q.status = 'queued')
               AND NOT EXISTS (SELECT 1 FROM ${S}.runs o WHERE o.session_key = r.session_key AND o.status = 'running')
             ORDER BY r.seq LIMIT $3
             FOR UPDATE SKIP LOCKED)
           UPDATE ${S}.runs t SET status = 'running', started_at = ${NOW_ISO}, attempts = t.attempts + 1, lease_owner = $1, lease_until = ${lease("$2")}
           FROM c WHERE t.id = c.id
           RETURNING t.*`,
          [owner, leaseMs, limit],
        );
        return records(rows).sort((a, b) => a.seq - b.seq);
      } catch (e) {
        // Another consumer started a run of one of these sessions in the same instant: the index refused ours; the next claim sees it.
        if ((e as { code?: string }).code === "23505") return [];
        throw e;
      }
    },
    async renew(owner, ids, leaseMs) {
      if (ids.length === 0) return [];
      const { rows } = await pool.query<{ id: string }>(
        `UPDATE ${S}.runs SET lease_until = ${lease("$3")} WHERE id = ANY($2::text[]) AND lease_owner = $1 AND status = 'running' RETURNING id`,
        [owner, ids, leaseMs],
      );
      return rows.map((r) => r.id);
    },
    finish: (id, owner, patch) => leased(id, owner, patch),
    async requeue(id, owner, patch = {}) {
      const { status: _status, ...rest } = patch;
      return leased(id, owner, rest, ["status = 'queued'", "lease_owner = NULL", "lease_until = NULL"]);
    },
    async release(owner) {
      const { rowCount } = await pool.query(`UPDATE ${S}.runs SET lease_until = now() WHERE lease_owner = $1 AND status = 'running'`, [owner]);
      return rowCount ?? 0;
    },
    async reclaimExpired({ owner, leaseMs, limit }) {
      const { rows } = await pool.query<PgRunRow & { previous_owner: string | null }>(
        `WITH c AS (
           SELECT id, lease_owner AS previous_owner FROM ${S}.runs WHERE status = 'running' AND lease_until < now() ORDER BY seq LIMIT $3 FOR UPDATE SKIP LOCKED)
         UPDATE ${S}.runs t SET lease_owner = $1, lease_until = ${lease("$2")}
         FROM c WHERE t.id = c.id
         RETURNING t.*, c.previous_owner`,
        [owner, leaseMs, limit],
      );
      const previous = new Map(rows.map((r) => [r.id, r.previous_owner ?? undefined]));
      return records(rows)
        .sort((a, b) => a.seq - b.seq)
        .map((run) => ({ run, ...(previous.get(run.id) !== undefined ? { previousOwner: previous.get(run.id) } : {}) }));
    },
    async update(id, patch) {
      const { sets, values } = assignments(patch, 2);
      if (patch.status !== undefined && TERMINAL.has(patch.status)) sets.push("lease_owner = NULL", "lease_until = NULL");
      if (sets.length === 0) sets.push("id = id");
      const { rowCount } = await pool.query(`UPDATE ${S}.runs SET ${sets.join(", ")} WHERE id = $1`, [id, ...values]);
      if (rowCount !== 1) throw new Error(`run ${id} does not exist`);
    },
    async get(id) {
      const { rows } = await pool.query<PgRunRow>(`SELECT * FROM ${S}.runs WHERE id = $1`, [id]);
      return records(rows)[0];
    },
    async listByStatus(statuses, limit = 10_000) {
      if (statuses.length === 0) return [];
      const { rows } = await pool.query<PgRunRow>(`SELECT * FROM ${S}.runs WHERE status = ANY($1::text[]) ORDER BY seq LIMIT $2`, [statuses, limit]);
      return records(rows);
    },
    async list({ limit, status }) {
      // What the listing shows only (LISTING_COLUMNS, as the SQLite store's run-list.ts): no action or source read or parsed.
      const { rows } = status
        ? await pool.query<ListingRow>(`SELECT ${LISTING_COLUMNS} FROM ${S}.runs WHERE status = $1 ORDER BY seq DESC LIMIT $2`, [status, limit])
        : await pool.query<ListingRow>(`SELECT ${LISTING_COLUMNS} FROM ${S}.runs ORDER BY seq DESC LIMIT $1`, [limit]);
      const listed = rows.map(listingView);
      // A row without its name (stored before migration 2 with an action that was not valid JSON): read in full, a damaged one left out.
      const missing = rows.filter((_, i) => listed[i] === undefined).map((r) => r.id);
      const full = new Map<string, RunView>();
      if (missing.length > 0) {
        const { rows: whole } = await pool.query<PgRunRow>(`SELECT * FROM ${S}.runs WHERE id = ANY($1::text[])`, [missing]);
        for (const run of records(whole)) full.set(run.id, toRunView(run));
      }
      return rows.flatMap((r, i) => {
        const v = listed[i] ?? full.get(r.id);
        return v ? [v] : [];
      });
    },
    async countQueued() {
      const { rows } = await pool.query<{ n: string }>(`SELECT count(*) AS n FROM ${S}.runs WHERE status = 'queued'`);
      return Number(rows[0]?.n ?? 0);
    },
    async counts(sinceMs) {
      const { rows } = await pool.query<{ queued: string; running: string; failed: string }>(
        `SELECT count(*) FILTER (WHERE status = 'queued') AS queued, count(*) FILTER (WHERE status = 'running') AS running,
                (SELECT count(*) FROM ${S}.runs WHERE status IN ('failed','timed_out') AND finished_ms >= $1) AS failed
         FROM ${S}.runs WHERE status IN ('queued','running')`,
        [sinceMs],
      );
      const r = rows[0];
      return { queued: Number(r?.queued ?? 0), running: Number(r?.running ?? 0), failedSince: Number(r?.failed ?? 0) };
    },
    async prune({ retentionDays, maxFinished, now, batch = 500 }) {
      let removed = 0;
      const cutoff = now - retentionDays * 86_400_000;
      // Small statements, each its own transaction: no long lock on the table however much is due.
      for (;;) {
        const { rowCount } = await pool.query(
          `DELETE FROM ${S}.runs WHERE id IN (SELECT id FROM ${S}.runs WHERE finished_ms < $1 AND status IN ('succeeded','failed','timed_out','interrupted') AND NOT summary_pending ORDER BY finished_ms LIMIT $2)`,
          [cutoff, batch],
        );
        removed += rowCount ?? 0;
        if ((rowCount ?? 0) < batch) break;
      }
      for (;;) {
        const { rowCount } = await pool.query(
          `DELETE FROM ${S}.runs WHERE id IN (
             SELECT id FROM ${S}.runs WHERE finished_ms IS NOT NULL AND status IN ('succeeded','failed','timed_out','interrupted') AND NOT summary_pending
             ORDER BY finished_ms DESC, seq DESC OFFSET $1 LIMIT $2)`,
          [maxFinished, batch],
        );
        removed += rowCount ?? 0;
        if ((rowCount ?? 0) < batch) break;
      }
      return removed;
    },
  };
}
