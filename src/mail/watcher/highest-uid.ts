/**
 * The highest of a list of UIDs, in one loop. Not `Math.max(...uids)`: a spread passes
 * every element as an argument, and past roughly 120 000 of them V8 throws RangeError
 * (maximum call stack size exceeded) — a mailbox of that size made the watcher fail at
 * every connect and reconnect for ever.
 *
 * @example highestUid([3, 9, 4]) // 9
 * @example highestUid([]) // undefined
 */
export function highestUid(uids: readonly number[]): number | undefined {
  let highest: number | undefined;
  for (const uid of uids) if (highest === undefined || uid > highest) highest = uid;
  return highest;
}

/** UIDNEXT derived from the UIDs present, for a server that does not report it: highest + 1, or 1 for an empty mailbox. */
export function uidNextAfter(uids: readonly number[]): number {
  return (highestUid(uids) ?? 0) + 1;
}
