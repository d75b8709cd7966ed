/**
 * Counts the turns of the event loop (its check phases) from now on: work that ran in one
 * stretch leaves the count as it was, work split by a turn (src/core/after-io-poll.ts) does not.
 */
export interface LoopTurns {
  /** Turns so far. */
  count(): number;
  stop(): void;
}

export function countLoopTurns(): LoopTurns {
  let turns = 0;
  let next = setImmediate(function tick() {
    turns++;
    next = setImmediate(tick);
  });
  return { count: () => turns, stop: () => clearImmediate(next) };
}
