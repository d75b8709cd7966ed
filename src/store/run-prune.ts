/**
 * Bounds on finished runs (SPEC §7 "Bounded disk"): a run that succeeded, failed, timed
 * out or was interrupted is deleted `retentionDays` after it finished, and beyond the
 * newest `maxFinished` of them — at the store's start and then in the background. Queued
 * and running runs are never deleted, nor a finished run whose summary has not yet
 * reached the main session (`summary_pending`: the outbox still needs it).
 *
 * A prune is a **step** of bounded cost (SPEC §14): it deletes at most RUN_PRUNE_STEP_ROWS
 * runs — those past the age first (the oldest finished first), then the oldest beyond
 * `maxFinished` — in at most two DELETEs, each of them committed on its own (autocommit: a
 * crash between two leaves the runs of the ones before deleted and every other run as it was;
 * no other table is touched); `more` says whether a limit is still passed. The run store runs the steps one per turn of the event loop (before:
 * one DELETE over every run past a limit, however many).
 *
 * @example
 *   const step = createRunPruner(db, { retentionDays: 7, maxFinished: 1000, clock: Date.now });
 *   let r = step();
 *   while (r.more) r = step(); // a step per turn, in the store
 */
import type { SqliteDatabase } from "./sqlite-types";

export const DEFAULT_RUN_RETENTION_DAYS = 7;
export const DEFAULT_MAX_FINISHED_RUNS = 1000;
/** At most this many runs are deleted by one prune step (one statement). */
export const RUN_PRUNE_STEP_ROWS = 100;

const FINISHED = "status NOT IN ('queued','running') AND summary_pending = 0";

export interface RunPruneOptions {
  retentionDays: number;
  maxFinished: number;
  clock: () => number;
}

export interface RunPruneStep {
  /** How many runs this step deleted (≤ RUN_PRUNE_STEP_ROWS). */
  removed: number;
  /** True when a limit is still passed: another step has runs to delete. */
  more: boolean;
}

/** Returns the pruning step: deletes at most RUN_PRUNE_STEP_ROWS finished runs past their age or count, in one statement. */
export function createRunPruner(db: SqliteDatabase, opts: RunPruneOptions): () => RunPruneStep {
  // The oldest finished runs past the age, by when they finished: in the runs_finished_at index's order (ties by rowid), so
  // the step reads its rows from the low end of the index and sorts nothing (`, seq` made it sort every run of a tie).
  const byAge = db.prepare<[string, number]>(
    `DELETE FROM runs WHERE seq IN (SELECT seq FROM runs WHERE finished_at IS NOT NULL AND finished_at < ? AND ${FINISHED} ORDER BY finished_at LIMIT ?)`,
  );
  const count = db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM runs WHERE ${FINISHED}`);
  // The oldest finished runs beyond maxFinished, by acceptance order.
  const oldest = db.prepare<[number]>(`DELETE FROM runs WHERE seq IN (SELECT seq FROM runs WHERE ${FINISHED} ORDER BY seq ASC LIMIT ?)`);
  return () => {
    const aged = byAge.run(new Date(opts.clock() - opts.retentionDays * 86_400_000).toISOString(), RUN_PRUNE_STEP_ROWS).changes;
    // A full step by age: there may be more past the age; the count is looked at once none are left.
    if (aged === RUN_PRUNE_STEP_ROWS) return { removed: aged, more: true };
    const excess = (count.get()?.n ?? 0) - opts.maxFinished;
    if (excess <= 0) return { removed: aged, more: false };
    // Past the age, then beyond the count: still one step's rows in all.
    const room = RUN_PRUNE_STEP_ROWS - aged;
    const over = oldest.run(Math.min(excess, room)).changes;
    return { removed: aged + over, more: over > 0 && excess > over };
  };
}
