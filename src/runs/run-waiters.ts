/**
 * Requests waiting for their run to end (`Prefer: wait`, SPEC §12). A waiter is
 * registered right after its run was accepted — before the run can start — and
 * learns the outcome (status and reply) the moment the queue records it. Replies
 * are handed to live waiters only and never kept: a run nobody waits for costs
 * nothing here, and a waiter that gave up (timeout, disconnect) is forgotten.
 *
 * @example
 *   const wait = waiters.expect(runId);
 *   const end = await wait.promise; // undefined when released (shutdown) or cancelled
 */
import type { RunOutcome } from "../core/runs";

/** How a waited-for run ended. */
export interface RunEnd {
  status: RunOutcome["status"];
  /** The agent's reply (succeeded runs). */
  reply?: string;
  /** Why it did not succeed. */
  error?: string;
}

export interface RunWait {
  /** Resolves with the run's end, or undefined when cancelled or released. */
  readonly promise: Promise<RunEnd | undefined>;
  /** Stops waiting (resolves the promise with undefined); idempotent. */
  cancel(): void;
}

export interface RunWaiters {
  expect(runId: string): RunWait;
  /** Called with every recorded outcome; wakes the run's waiters. */
  settle(runId: string, outcome: RunOutcome): void;
  /** Resolves every waiter with undefined (shutdown): they answer 202 at once, and so does every later one. */
  releaseAll(): void;
  /** Waiters registered now. */
  readonly size: number;
}

export function createRunWaiters(): RunWaiters {
  const byRun = new Map<string, Set<(end: RunEnd | undefined) => void>>();
  let size = 0;
  /** Set by releaseAll (shutdown): a run stored in that instant will not end while the queue stops, so nobody waits for it. */
  let released = false;

  function remove(runId: string, resolve: (end: RunEnd | undefined) => void): boolean {
    const set = byRun.get(runId);
    if (!set?.delete(resolve)) return false;
    if (set.size === 0) byRun.delete(runId);
    size--;
    return true;
  }

  return {
    expect(runId) {
      if (released) return { promise: Promise.resolve(undefined), cancel: () => undefined };
      let resolve!: (end: RunEnd | undefined) => void;
      const promise = new Promise<RunEnd | undefined>((r) => (resolve = r));
      const set = byRun.get(runId) ?? new Set();
      set.add(resolve);
      byRun.set(runId, set);
      size++;
      return {
        promise,
        cancel: () => {
          if (remove(runId, resolve)) resolve(undefined);
        },
      };
    },
    settle(runId, outcome) {
      const set = byRun.get(runId);
      if (!set) return;
      byRun.delete(runId);
      size -= set.size;
      const end: RunEnd = { status: outcome.status };
      if (outcome.status === "succeeded") end.reply = outcome.reply ?? "";
      else if (outcome.error !== undefined) end.error = outcome.error;
      for (const resolve of set) resolve(end);
    },
    releaseAll() {
      released = true;
      const all = [...byRun.values()];
      byRun.clear();
      size = 0;
      for (const set of all) for (const resolve of set) resolve(undefined);
    },
    get size() {
      return size;
    },
  };
}
