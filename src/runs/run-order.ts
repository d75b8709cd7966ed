/**
 * Which queued run the run queue starts next (SPEC §5.1, §7): the oldest (lowest `seq`)
 * whose session key has no run in progress, at most `maxConcurrent` at once. A run that
 * was interrupted before (queued again by `retryInterrupted`, so it has a `startedAt`)
 * runs alone: it waits for the runs in progress, nothing starts beside it, and no run
 * overtakes it meanwhile. A crash while it runs is then its own, and counted against it
 * alone (recovery.ts), so a run that kept crashing the gateway beside others is found and
 * the others finish.
 *
 * @example
 *   const i = nextToStart(queued, busyKeys, running, config.maxConcurrent); // -1: start nothing now
 */
import type { RunRecord } from "../core/runs";

/** True for a run that must run alone: it was started before and queued again after an interruption. */
export function runsAlone(run: RunRecord): boolean {
  return run.startedAt !== undefined;
}

/** Inserts `run` into `queued`, kept in seq order. */
export function insertBySeq(queued: RunRecord[], run: RunRecord): void {
  let i = queued.length;
  while (i > 0 && queued[i - 1]!.seq > run.seq) i--;
  queued.splice(i, 0, run);
}

/** The index in `queued` of the run to start now, or -1 when none may start. */
export function nextToStart(
  queued: readonly RunRecord[],
  busyKeys: ReadonlySet<string>,
  running: ReadonlyMap<string, { alone: boolean }>,
  maxConcurrent: number,
): number {
  if (running.size >= maxConcurrent) return -1;
  for (const r of running.values()) if (r.alone) return -1;
  const index = queued.findIndex((r) => !busyKeys.has(r.action.sessionKey));
  if (index < 0) return -1;
  return runsAlone(queued[index]!) && running.size > 0 ? -1 : index;
}
