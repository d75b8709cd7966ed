/**
 * In-memory RunStore: the same contract as the durable SQLite store, for tests
 * and for hosts that do not need runs to survive a restart.
 */
import type { RunRecord, RunStatus, RunStore } from "../core/runs";

/**
 * Creates an empty in-memory store. Records are copied in and out, so callers
 * can never mutate stored state by accident. After `close()` every call throws.
 *
 * @example const store = createMemoryRunStore(); store.insert(run); store.get(run.id);
 */
export function createMemoryRunStore(): RunStore {
  const runs = new Map<string, RunRecord>();
  let lastSeq = 0;
  let closed = false;

  const open = (): void => {
    if (closed) throw new Error("run store is closed");
  };

  return {
    insert(run) {
      open();
      if (runs.has(run.id)) throw new Error(`run ${run.id} already exists`);
      runs.set(run.id, structuredClone(run));
      lastSeq = Math.max(lastSeq, run.seq);
    },
    insertAll(list) {
      open();
      const ids = new Set<string>();
      for (const run of list) {
        if (runs.has(run.id) || ids.has(run.id)) throw new Error(`run ${run.id} already exists`);
        ids.add(run.id);
      }
      for (const run of list) {
        runs.set(run.id, structuredClone(run));
        lastSeq = Math.max(lastSeq, run.seq);
      }
    },
    update(id, patch) {
      open();
      const current = runs.get(id);
      if (!current) throw new Error(`run ${id} does not exist`);
      const next: RunRecord = { ...current };
      for (const [key, value] of Object.entries(patch) as Array<[keyof typeof patch, unknown]>) {
        if (value !== undefined) (next as unknown as Record<string, unknown>)[key] = structuredClone(value);
      }
      runs.set(id, next);
    },
    get(id) {
      open();
      const run = runs.get(id);
      return run ? structuredClone(run) : undefined;
    },
    listByStatus(statuses: readonly RunStatus[]) {
      open();
      return [...runs.values()]
        .filter((r) => statuses.includes(r.status))
        .sort((a, b) => a.seq - b.seq)
        .map((r) => structuredClone(r));
    },
    countQueued() {
      open();
      let n = 0;
      for (const r of runs.values()) if (r.status === "queued") n++;
      return n;
    },
    nextSeq() {
      open();
      lastSeq += 1;
      return lastSeq;
    },
    close() {
      closed = true;
    },
  };
}
