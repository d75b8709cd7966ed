/**
 * Bounds on finished runs (SPEC §7 "Bounded disk"): a run that succeeded, failed, timed
 * out or was interrupted is deleted `retentionDays` after it finished, and beyond the
 * newest `maxFinished` of them — at the store's start and then in the background. Queued
 * and running runs are never deleted, nor a finished run whose summary has not yet
 * reached the main session (`summary_pending`: the outbox still needs it).
 *
 * @example
 *   const prune = createRunPruner(db, { retentionDays: 7, maxFinished: 1000, clock: Date.now });
 *   prune(); // → how many runs were deleted
 */
import type { SqliteDatabase } from "./sqlite-types";

export const DEFAULT_RUN_RETENTION_DAYS = 7;
export const DEFAULT_MAX_FINISHED_RUNS = 1000;

const FINISHED = "status NOT IN ('queued','running') AND summary_pending = 0";

export interface RunPruneOptions {
  retentionDays: number;
  maxFinished: number;
  clock: () => number;
}

/** Returns the pruning step: deletes finished runs past their age or count; returns how many. */
export function createRunPruner(db: SqliteDatabase, opts: RunPruneOptions): () => number {
  const byAge = db.prepare<[string]>(`DELETE FROM runs WHERE finished_at IS NOT NULL AND finished_at < ? AND ${FINISHED}`);
  const count = db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE ${FINISHED}`);
  // The oldest finished runs beyond maxFinished, by acceptance order.
  const oldest = db.prepare<[number]>(`DELETE FROM runs WHERE seq IN (SELECT seq FROM runs WHERE ${FINISHED} ORDER BY seq ASC LIMIT ?)`);
  return () => {
    const aged = byAge.run(new Date(opts.clock() - opts.retentionDays * 86_400_000).toISOString()).changes;
    const excess = (count.get()?.n ?? 0) - opts.maxFinished;
    return aged + (excess > 0 ? oldest.run(excess).changes : 0);
  };
}
