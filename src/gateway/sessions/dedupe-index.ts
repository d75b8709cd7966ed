/**
 * The dedupe keys a session knows, indexed so `hasDedupeKey` is O(1) however
 * long the queue is: a count per key of the pending events carrying it, and a
 * count per key in the (bounded) list of recently consumed keys. Kept in step
 * with the record by the session store on every enqueue, consume and load.
 */
import type { PendingSystemEvent, SessionRecord } from "./session-types";

export const dedupeKeyOf = (e: PendingSystemEvent): string | undefined => (typeof e.meta?.dedupeKey === "string" ? e.meta.dedupeKey : undefined);

export interface DedupeIndex {
  has(key: string): boolean;
  added(ev: PendingSystemEvent): void;
  removed(ev: PendingSystemEvent): void;
  /** Keys that entered the record's bounded `recentDedupeKeys` list, and those that left it. */
  recentChanged(entered: readonly string[], left: readonly string[]): void;
}

function bump(map: Map<string, number>, key: string, by: number): void {
  const n = (map.get(key) ?? 0) + by;
  if (n > 0) map.set(key, n);
  else map.delete(key);
}

export function createDedupeIndex(session: Readonly<SessionRecord>): DedupeIndex {
  const pending = new Map<string, number>();
  const recent = new Map<string, number>();
  for (const e of session.pending) {
    const k = dedupeKeyOf(e);
    if (k !== undefined) bump(pending, k, 1);
  }
  for (const k of session.recentDedupeKeys ?? []) bump(recent, k, 1);
  return {
    has: (key) => pending.has(key) || recent.has(key),
    added(ev) {
      const k = dedupeKeyOf(ev);
      if (k !== undefined) bump(pending, k, 1);
    },
    removed(ev) {
      const k = dedupeKeyOf(ev);
      if (k !== undefined) bump(pending, k, -1);
    },
    recentChanged(entered, left) {
      for (const k of entered) bump(recent, k, 1);
      for (const k of left) bump(recent, k, -1);
    },
  };
}
