/**
 * Regression (issue 35, SPEC §14 "no stall > 50 ms"): the run store pruned every finished run
 * past a limit with one unbounded DELETE, synchronously — 10,000 runs due were 10,000 rows in
 * one statement on one turn of the event loop. Now a prune step deletes at most
 * RUN_PRUNE_STEP_ROWS runs, and the steps run one per turn, so other work interleaves.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { createRunPruner, RUN_PRUNE_STEP_ROWS } from "../../src/store/run-prune";
import { recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

const NOW = Date.parse("2030-01-10T00:00:00Z");
const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe("run prune: bounded steps, one per turn", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  beforeEach(() => {
    tmp = tempDir("iw-run-prune-batches-");
    log = recordingLogger("store");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
  });
  afterEach(() => {
    database.close();
    log.close();
    tmp.remove();
  });
  const finishedRuns = (): number => database.db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE status = 'succeeded'").get()!.n;
  const ids = (): string[] =>
    database.db
      .prepare<[], { id: string }>("SELECT id FROM runs ORDER BY seq")
      .all()
      .map((r) => r.id);
  /** `n` succeeded runs finished at `finishedAt(i)`, seq from `from`, in one transaction. */
  const fill = (n: number, from: number, finishedAt: (i: number) => number, prefix = "done"): void => {
    const store = createSqliteRunStore(database, { maxFinished: 10_000_000, retentionDays: 10_000, pruneIntervalMs: 3_600_000, clock: () => NOW });
    const runs = Array.from({ length: n }, (_, k) =>
      runRecord({
        id: `${prefix}-${from + k}`,
        seq: from + k,
        status: "succeeded",
        createdAt: iso(finishedAt(k) - 10),
        finishedAt: iso(finishedAt(k)),
        summary: "ok",
      }),
    );
    store.insertAll(runs);
  };

  it("regression: 1,000 runs past retentionDays went in one DELETE — a step deletes at most RUN_PRUNE_STEP_ROWS, by age the oldest finished first", () => {
    fill(1000, 1, (i) => NOW - 30 * DAY + i);
    fill(5, 1001, () => NOW, "fresh");
    const step = createRunPruner(database.db, { retentionDays: 7, maxFinished: 1000, clock: () => NOW });
    const sizes: number[] = [];
    for (let r = step(); ; r = step()) {
      sizes.push(r.removed);
      expect(r.removed).toBeLessThanOrEqual(RUN_PRUNE_STEP_ROWS);
      if (sizes.length === 1)
        expect(ids().slice(0, 3)).toEqual([`done-${RUN_PRUNE_STEP_ROWS + 1}`, `done-${RUN_PRUNE_STEP_ROWS + 2}`, `done-${RUN_PRUNE_STEP_ROWS + 3}`]);
      if (!r.more) break;
    }
    // Full steps while runs past the age may be left, then one that finds none (and the count within maxFinished).
    expect(sizes).toEqual([...Array.from({ length: 1000 / RUN_PRUNE_STEP_ROWS }, () => RUN_PRUNE_STEP_ROWS), 0]);
    expect(ids()).toEqual(["fresh-1001", "fresh-1002", "fresh-1003", "fresh-1004", "fresh-1005"]);
  });

  it("beyond maxFinished: steps of at most RUN_PRUNE_STEP_ROWS, the oldest by acceptance first, until exactly maxFinished are left", () => {
    fill(350, 1, (i) => NOW - 1000 + i);
    const step = createRunPruner(database.db, { retentionDays: 7, maxFinished: 100, clock: () => NOW });
    const sizes: number[] = [];
    for (let r = step(); ; r = step()) {
      sizes.push(r.removed);
      if (!r.more) break;
    }
    expect(sizes).toEqual([100, 100, 50]);
    expect(ids()).toEqual(Array.from({ length: 100 }, (_, i) => `done-${251 + i}`));
  });

  it("past the age and beyond the count in one step: still at most RUN_PRUNE_STEP_ROWS in all", () => {
    fill(30, 1, (i) => NOW - 30 * DAY + i, "old");
    fill(200, 31, (i) => NOW - 1000 + i);
    const step = createRunPruner(database.db, { retentionDays: 7, maxFinished: 50, clock: () => NOW });
    expect(step()).toEqual({ removed: 100, more: true });
    expect(ids()[0]).toBe("done-101");
    expect(step()).toEqual({ removed: 80, more: false });
    expect(ids()).toEqual(Array.from({ length: 50 }, (_, i) => `done-${181 + i}`));
  });

  it("the store prunes one step per turn of the event loop: other work runs between steps, and the store is usable throughout", async () => {
    fill(1000, 1, (i) => NOW - 30 * DAY + i);
    const store = createSqliteRunStore(database, { maxFinished: 1000, retentionDays: 7, pruneIntervalMs: 3_600_000, clock: () => NOW });
    // The start ran one step, synchronously: the rest waits for later turns.
    expect(finishedRuns()).toBe(1000 - RUN_PRUNE_STEP_ROWS);
    const seen: number[] = [];
    const watching = new Promise<void>((resolve) => {
      const look = (): void => {
        seen.push(finishedRuns());
        if (seen.at(-1) === 0) return resolve();
        setImmediate(look);
      };
      setImmediate(look);
    });
    store.insert(runRecord({ id: "queued-1", seq: 5000 }));
    await watching;
    await until(() => finishedRuns() === 0, "every aged run pruned");
    // Each look saw at most one step more gone than the look before: the steps interleaved with it.
    for (let i = 1; i < seen.length; i++) expect(seen[i - 1] - seen[i]).toBeLessThanOrEqual(RUN_PRUNE_STEP_ROWS);
    expect(new Set(seen).size).toBeGreaterThanOrEqual((1000 - RUN_PRUNE_STEP_ROWS) / RUN_PRUNE_STEP_ROWS);
    expect(ids()).toEqual(["queued-1"]);
  });
});
