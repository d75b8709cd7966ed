/**
 * Free pages given back to the file system (SPEC §7 "Bounded disk", issue 22 item 8).
 * Regression: after pruning, a 1.2 GB plugin database held 475 MB of free pages that
 * never went back to the disk (no auto_vacuum). Small numbers here; the big one is in
 * docs/reliability.md.
 */
import fs from "node:fs";
import path from "node:path";
import { openPluginDatabase } from "../../src/store/database";
import { MIGRATIONS, migrate } from "../../src/store/migrations";
import { createSqliteRunStore } from "../../src/store/run-store";
import { openSqlite } from "../../src/store/sqlite-driver";
import { RECLAIM_MIN_PAGES } from "../../src/store/vacuum";
import { agentAction, recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

const FILE = "inbound-webhooks.sqlite";
const QUIET = { pruneIntervalMs: 3_600_000 };

describe("incremental vacuum", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  beforeEach(() => {
    tmp = tempDir("iw-vacuum-");
    log = recordingLogger("store");
  });
  afterEach(() => {
    jest.restoreAllMocks();
    log.close();
    tmp.remove();
  });
  const bytes = () => fs.statSync(path.join(tmp.dir, FILE)).size;

  /** 40 finished runs with 250 KB messages (10 MB), in a database opened by the plugin. */
  function fill(maxFinished: number, maintenanceIntervalMs = 3_600_000) {
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs: 3_600_000 });
    const store = createSqliteRunStore(database, { ...QUIET, maxFinished: 1000 });
    const message = "m".repeat(250 * 1024);
    for (let i = 1; i <= 40; i++) {
      store.insert(runRecord({ id: `r-${i}`, seq: i, status: "succeeded", action: agentAction({ message }), finishedAt: new Date().toISOString() }));
    }
    database.close();
    const reopened = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs });
    createSqliteRunStore(reopened, { ...QUIET, maxFinished });
    return reopened;
  }

  it("regression: pruned runs left their pages in the file for ever — a new database is incremental, and reclaim() gives the pages back (10 MB → under 2 MB)", () => {
    const database = fill(1);
    expect(database.db.pragmaValue("auto_vacuum")).toBe(2);
    expect(database.db.pragmaValue("freelist_count") as number).toBeGreaterThan(2000);
    while (database.reclaim() > 0);
    expect(database.db.pragmaValue("freelist_count") as number).toBeLessThanOrEqual(RECLAIM_MIN_PAGES);
    database.close();
    expect(bytes()).toBeLessThan(2 * 1024 * 1024);
  });

  it("regression: a new database was created without incremental vacuum (journal_mode = WAL had written its first page), so its second start rewrote it with a full VACUUM", () => {
    const first = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs: 3_600_000 });
    expect(first.db.pragmaValue("auto_vacuum")).toBe(2);
    first.close();
    const second = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs: 3_600_000 });
    expect(second.db.pragmaValue("auto_vacuum")).toBe(2);
    expect(log.lines.filter((l) => l.message.includes("incremental vacuum"))).toEqual([]);
    second.close();
  });

  it("the maintenance timer gives a big prune back by itself, step after step (4 MiB each) until only the slack is left", async () => {
    const database = fill(1, 20);
    expect(database.db.pragmaValue("freelist_count") as number).toBeGreaterThan(2000);
    await until(() => (database.db.pragmaValue("freelist_count") as number) <= RECLAIM_MIN_PAGES, "the free pages given back by the timer");
    database.close();
    expect(bytes()).toBeLessThan(2 * 1024 * 1024);
  });

  it("converts an existing database (made before incremental vacuum) once at open: every row kept, not converted again at the next start", () => {
    const raw = openSqlite(path.join(tmp.dir, FILE));
    raw.pragma("journal_mode = WAL");
    migrate(raw, MIGRATIONS);
    raw.prepare("INSERT INTO runs (id, seq, status, action, source, created_at) VALUES ('kept', 1, 'queued', '{}', '{}', '2030-01-01T00:00:00Z')").run();
    raw.close();
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs: 3_600_000 });
    expect(database.db.pragmaValue("auto_vacuum")).toBe(2);
    expect(database.db.prepare<[], { id: string }>("SELECT id FROM runs").all()).toEqual([{ id: "kept" }]);
    expect(log.lines.map((l) => l.message)).toContain("plugin database converted to incremental vacuum");
    database.close();
    const again = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs: 3_600_000 });
    expect(log.lines.filter((l) => l.message.startsWith("converting")).length).toBe(1);
    again.close();
  });

  it("without room for the one-time copy, the database is left as it was, with a warning naming the space needed (tried again at the next start)", () => {
    const raw = openSqlite(path.join(tmp.dir, FILE));
    migrate(raw, MIGRATIONS);
    raw.close();
    const real = fs.statfsSync;
    jest.spyOn(fs, "statfsSync").mockImplementation(((p: fs.PathLike) => ({ ...real(p), bavail: 1 })) as typeof fs.statfsSync);
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger, maintenanceIntervalMs: 3_600_000 });
    expect(database.db.pragmaValue("auto_vacuum")).toBe(0);
    expect(database.reclaim()).toBe(0);
    const warning = log.lines.find((l) => l.level === "warn")!;
    expect(warning.message).toMatch(
      /was not converted to incremental vacuum .* needs \d+ MB free in its directory and in .*; it is tried again at the next start/,
    );
    database.close();
  });
});
