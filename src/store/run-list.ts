/**
 * Listing runs for operators (SPEC §11 `GET {path}/runs`): newest first, optionally
 * of one status, and the counts of the hooks summary. Read-only queries on the
 * `runs` table; a damaged row is left out of a listing (the run store reports it).
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

export function createRunLister(database: PluginDatabase): RunLister {
  const { db } = database;
  const one = db.prepare<[string], RunRow>("SELECT * FROM runs WHERE id = ?");
  const all = db.prepare<[number], RunRow>("SELECT * FROM runs ORDER BY seq DESC LIMIT ?");
  const ofStatus = db.prepare<[string, number], RunRow>("SELECT * FROM runs WHERE status = ? ORDER BY seq DESC LIMIT ?");
  const byStatus = db.prepare<[], { status: string; n: number }>("SELECT status, COUNT(*) AS n FROM runs WHERE status IN ('queued','running') GROUP BY status");
  const failed = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE status IN ('failed','timed_out') AND finished_at >= ?");
  const views = (rows: RunRow[]): RunView[] =>
    rows.flatMap((row) => {
      const parsed = parseRunRow(row);
      return parsed.ok ? [toRunView(parsed.run)] : [];
    });
  return {
    list: ({ limit, status }) => views(status ? ofStatus.all(status, limit) : all.all(limit)),
    get: (id) => {
      const row = one.get(id);
      return row ? views([row])[0] : undefined;
    },
    counts(sinceMs) {
      const n = Object.fromEntries(byStatus.all().map((r) => [r.status, r.n]));
      return { queued: n.queued ?? 0, running: n.running ?? 0, failedSince: failed.get(new Date(sinceMs).toISOString())?.n ?? 0 };
    },
  };
}
