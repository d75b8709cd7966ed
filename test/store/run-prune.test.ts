/**
 * Finished runs bounded by age and count, in the background (SPEC §7 "Bounded disk",
 * issue 22 item 8). Regression: 3,000 agent requests of 250 KB left 3,000 finished runs
 * in the database — pruned by age only, and only at start — so a busy week filled the disk.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import type { RunRecord } from "../../src/core/runs";
import { agentAction, recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

const NOW = Date.parse("2030-01-10T00:00:00Z");
const iso = (ms: number) => new Date(ms).toISOString();

describe("finished runs: pruned by age and count, in the background", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  beforeEach(() => {
    tmp = tempDir("iw-run-prune-");
    log = recordingLogger("store");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
  });
  afterEach(() => {
    database.close();
    log.close();
    tmp.remove();
  });
  const ids = (status?: string): string[] =>
    database.db
      .prepare<[], { id: string }>(`SELECT id FROM runs ${status ? `WHERE status = '${status}'` : ""} ORDER BY seq`)
      .all()
      .map((r) => r.id);
  const finished = (i: number, over: Partial<RunRecord> = {}): RunRecord =>
    runRecord({ id: `done-${i}`, seq: i, status: "succeeded", createdAt: iso(NOW - 1000 + i), finishedAt: iso(NOW - 500 + i), summary: "ok", ...over });

  it("regression: 3,000 finished runs of 250 KB messages were all kept (age only, at start only) — beyond maxFinished the oldest go, while the gateway runs", async () => {
    const store = createSqliteRunStore(database, { maxFinished: 20, retentionDays: 7, pruneIntervalMs: 20, clock: () => NOW });
    const big = agentAction({ message: "m".repeat(250 * 1024) });
    for (let i = 1; i <= 60; i++) store.insert(finished(i, { action: big }));
    store.insert(runRecord({ id: "queued-1", seq: 61 }));
    store.insert(runRecord({ id: "running-1", seq: 62, status: "running", startedAt: iso(NOW) }));
    await until(() => ids("succeeded").length === 20, "the background pruning to keep 20 finished runs");
    expect(ids()).toEqual([...Array.from({ length: 20 }, (_, i) => `done-${41 + i}`), "queued-1", "running-1"]);
  });

  it("deletes runs finished more than retentionDays ago, in the background (not only at start); queued and running runs are never deleted", async () => {
    let now = NOW;
    const store = createSqliteRunStore(database, { maxFinished: 1000, retentionDays: 7, pruneIntervalMs: 20, clock: () => now });
    store.insert(finished(1));
    store.insert(finished(2, { finishedAt: iso(NOW + 3 * 86_400_000) }));
    store.insert(runRecord({ id: "queued-old", seq: 3, createdAt: iso(NOW - 30 * 86_400_000) }));
    now = NOW + 8 * 86_400_000;
    await until(() => !ids().includes("done-1"), "done-1 pruned by age");
    expect(ids()).toEqual(["done-2", "queued-old"]);
  });

  it("keeps a finished run whose summary has not reached the main session yet (summary pending), whatever its age or count", () => {
    const quiet = { retentionDays: 1, maxFinished: 1, pruneIntervalMs: 3_600_000 };
    const store = createSqliteRunStore(database, { ...quiet, clock: () => NOW });
    store.insert(finished(1, { summaryPending: true }));
    store.insert(finished(2));
    // A start 30 days later: both are past retentionDays; the pending one stays.
    createSqliteRunStore(database, { ...quiet, clock: () => NOW + 30 * 86_400_000 });
    expect(ids()).toEqual(["done-1"]);
    store.insert(finished(3, { finishedAt: iso(NOW + 30 * 86_400_000) }));
    store.insert(finished(4, { finishedAt: iso(NOW + 30 * 86_400_000) }));
    // Over maxFinished: the oldest finished run without a pending summary goes.
    createSqliteRunStore(database, { ...quiet, clock: () => NOW + 30 * 86_400_000 });
    expect(ids()).toEqual(["done-1", "done-4"]);
  });
});
