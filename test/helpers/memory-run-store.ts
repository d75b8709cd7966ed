/**
 * In-memory RunStore for tests: the same contract as the durable SQLite store
 * (src/store/run-store.ts), including `stageInsert`, the path production takes for
 * every accepted run (the runs of one turn are committed together at the end of it).
 */
import type { RunRecord, RunStatus, RunStore } from "../../src/core/runs";

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

  /** Runs staged this turn, inserted together (like the SQLite store's group commit) once the turn ends. */
  let staged: Array<{ run: RunRecord; done: () => void; fail: (e: unknown) => void }> = [];
  const flush = (): void => {
    const batch = staged;
    staged = [];
    for (const s of batch) {
      try {
        store.insert(s.run);
        s.done();
      } catch (e) {
        s.fail(e);
      }
    }
  };

  const store: RunStore = {
    stageInsert(run) {
      open();
      if (staged.length === 0) setImmediate(flush);
      return new Promise<void>((done, fail) => staged.push({ run: structuredClone(run), done, fail }));
    },
    flush,
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
  return store;
}
