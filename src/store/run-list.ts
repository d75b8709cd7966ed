/**
 * Listing runs for operators (SPEC §11 `GET {path}/runs`, the dashboard's overview and
 * runs, the CLI's `runs list`): newest first, optionally of one status, and the counts of
 * the hooks summary. Read-only queries on the `runs` table.
 *
 * A listing reads only the columns it shows (LISTING_COLUMNS: ids, status, name, session
 * key, times, summary; migration 11 keeps the name and session key beside the action), never
 * the action or its source: 500 runs of 250 KB read with `SELECT *` and parsed in full held
 * the event loop 1.1 s. A row without those columns (damaged, or written outside the store) is
 * read in full and checked like any run (run-row.ts): a damaged one is left out (the run store
 * reports it). `get` reads one run in full.
 */
import type { PluginDatabase } from "./database";
import { toRunView, type RunStatus, type RunView } from "../core/runs";
import { parseRunRow, type RunRow } from "./run-row";

export interface RunCounts {
  queued: number;
  running: number;
  /** Failed or timed out, finished at or after `since`. */
  failedSince: number;
}

export interface RunLister {
  list(query: { limit: number; status?: RunStatus }): RunView[];
  get(id: string): RunView | undefined;
  counts(sinceMs: number): RunCounts;
}

/** What a listing reads of a run: what RunView shows, nothing of the action but its name and session key. */
export const LISTING_COLUMNS = "id, status, name, session_key, created_at, started_at, finished_at, summary";

/** A row as a listing reads it (LISTING_COLUMNS), from either store. */
export type ListingRow = Pick<RunRow, "id" | "status" | "created_at" | "started_at" | "finished_at" | "summary"> & {
  name: string | null;
  session_key: string | null;
};

/**
 * The view of a listed row (as toRunView makes it from the whole run), or undefined for a row
 * without its name or session key (written before they had columns, or outside the store):
 * that one the caller reads in full. The one rule of both stores' listings (pg-runs.ts too).
 */
export function listingView(row: ListingRow): RunView | undefined {
  if (row.name === null || row.session_key === null) return undefined;
  const v: RunView = { id: row.id, status: row.status, name: row.name, sessionKey: row.session_key, createdAt: row.created_at };
  // A run re-queued after an interruption keeps its old startedAt in the store; queued means not started.
  if (row.started_at !== null && row.status !== "queued") v.startedAt = row.started_at;
  if (row.finished_at !== null) v.finishedAt = row.finished_at;
  if (row.summary !== null) v.summary = row.summary;
  return v;
}

export function createRunLister(database: PluginDatabase): RunLister {
  const { db } = database;
  const one = db.prepare<[string], RunRow>("SELECT * FROM runs WHERE id = ?");
  const all = db.prepare<[number], ListingRow>(`SELECT ${LISTING_COLUMNS} FROM runs ORDER BY seq DESC LIMIT ?`);
  const ofStatus = db.prepare<[string, number], ListingRow>(`SELECT ${LISTING_COLUMNS} FROM runs WHERE status = ? ORDER BY seq DESC LIMIT ?`);
  const byStatus = db.prepare<[], { status: string; n: number }>("SELECT status, COUNT(*) AS n FROM runs WHERE status IN ('queued','running') GROUP BY status");
  const failed = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE status IN ('failed','timed_out') AND finished_at >= ?");
  const fullView = (row: RunRow | undefined): RunView[] => {
    const parsed = row ? parseRunRow(row) : undefined;
    return parsed?.ok ? [toRunView(parsed.run)] : [];
  };
  const views = (rows: ListingRow[]): RunView[] =>
    rows.flatMap((row) => {
      const listed = listingView(row);
      return listed ? [listed] : fullView(one.get(row.id));
    });
  return {
    list: ({ limit, status }) => views(status ? ofStatus.all(status, limit) : all.all(limit)),
    get: (id) => fullView(one.get(id))[0],
    counts(sinceMs) {
      const n = Object.fromEntries(byStatus.all().map((r) => [r.status, r.n]));
      return { queued: n.queued ?? 0, running: n.running ?? 0, failedSince: failed.get(new Date(sinceMs).toISOString())?.n ?? 0 };
    },
  };
}
