/**
 * How many new messages to fetch at once. Each source is read up to SOURCE_FETCH_MAX_BYTES
 * (2 MiB) and a chunk is held in memory until it is parsed, so `maxMessages` (up to 1000)
 * alone would allow 2 GiB per fetch: a backlog of large mails (`--since` an old date) could
 * exhaust the watcher's memory, and with `autoStart` the gateway's. Chunks are cut to a byte
 * budget from the messages' RFC822.SIZE instead.
 */

/** Bytes of message sources fetched at once (each message counted up to its fetch bound). */
export const DEFAULT_FETCH_BUDGET_BYTES = 32 * 1024 * 1024;

/**
 * The longest prefix of `uids` whose sources — each counted as its size, at most
 * `perMessageMax` — fit `budget`; never empty, so one message larger than the budget is
 * still read. A UID without a size (removed meanwhile) counts 0.
 *
 * @example takeWithinBudget([1, 2, 3], new Map([[1, 40], [2, 40], [3, 40]]), 100, 90) // [1, 2]
 */
export function takeWithinBudget(uids: readonly number[], sizes: ReadonlyMap<number, number>, perMessageMax: number, budget: number): number[] {
  let used = 0;
  let n = 0;
  for (const uid of uids) {
    const bytes = Math.min(sizes.get(uid) ?? 0, perMessageMax);
    if (n > 0 && used + bytes > budget) break;
    used += bytes;
    n += 1;
  }
  return uids.slice(0, n);
}
