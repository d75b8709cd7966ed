/**
 * The ledger store on its own: batching (one write of the database's group commit per turn), retention by
 * age and by count against an injected clock, write failures (logged without
 * content, dropped), damaged tables at start, and what `storeBodies: false` keeps.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import path from "node:path";
import { openSqlite, type SqliteDatabase } from "../../src/store/sqlite-driver";
import type { DeliverySummary } from "../../src/core/inspection";
import { createLedgerStore, type LedgerEntry, type LedgerStore } from "../../src/store/ledger-store";
import { INDEX_STEP_ROWS, SEARCH_CATCH_UP_STEPS } from "../../src/store/ledger-index";
import { LEDGER_INDEX_IDS_SCHEMA, MIGRATIONS, migrate } from "../../src/store/migrations";
import { recordingLogger, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";
import { DAMAGE_INDEX_SEGMENTS, writableShadowTables } from "../helpers/writable-shadow-tables";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T12:00:00Z");

function entry(n: number, over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: `d-${n}`,
    receivedAt: T0 + n,
    method: "POST",
    url: "/hooks/wake",
    hook: "wake",
    client: "127.0.0.1",
    status: 200,
    latencyMs: 3,
    runIds: [],
    headers: { "content-type": "application/json" },
    body: Buffer.from(`{"n":${n}}`),
    response: { ok: true },
    ...over,
  };
}

describe("ledger store", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  let now: number;
  let ledger: LedgerStore;
  const make = (over: Partial<Parameters<typeof createLedgerStore>[1]> = {}) =>
    createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries: 100, clock: () => now, ...over });

  beforeEach(() => {
    tmp = tempDir("iw-ledger-");
    log = recordingLogger("ledger");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    now = T0;
    ledger = make();
  });
  afterEach(() => {
    ledger.close();
    database.close();
    log.close();
    tmp.remove();
  });
  /**
   * Commits the turn's group commit now and lets its promises settle (subscribers, failure logs) and the prune steps that
   * follow a write run (one per turn, from the turn after the commit: a few here).
   */
  const runScheduled = async (): Promise<void> => {
    ledger.flush();
    for (let i = 0; i < 8; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  it("buffers rows for a short window, then writes them all as one write of a group commit", async () => {
    const stage = jest.spyOn(database.batch, "stage");
    ledger.record(entry(1));
    ledger.record(entry(2));
    expect(stage).not.toHaveBeenCalled();
    expect(ledger.count()).toBe(0);
    await runScheduled();
    expect(stage).toHaveBeenCalledTimes(1);
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-2", "d-1"]);
  });

  it("the window ends by itself: rows are written without an explicit flush", async () => {
    ledger.close();
    ledger = make({ flushWindowMs: 1 });
    ledger.record(entry(1));
    await until(() => ledger.count() === 1, "the buffered row to be written once its window ended");
  });

  it("tells subscribers about each row once it is written", async () => {
    const seen: string[] = [];
    const off = ledger.subscribe((d) => seen.push(d.id));
    ledger.record(entry(1));
    expect(seen).toEqual([]);
    await runScheduled();
    off();
    ledger.record(entry(2));
    await runScheduled();
    expect(seen).toEqual(["d-1"]);
  });

  it("skips a subscriber while its active() says it is not listening, and tells it again once it is", async () => {
    const seen: string[] = [];
    let listening = false;
    ledger.subscribe(
      (d) => seen.push(d.id),
      () => listening,
    );
    ledger.record(entry(1));
    await runScheduled();
    listening = true;
    ledger.record(entry(2));
    await runScheduled();
    expect(seen).toEqual(["d-2"]);
    expect(ledger.count()).toBe(2);
  });

  it("prunes rows older than retentionDays, by the injected clock", async () => {
    ledger.record(entry(1, { receivedAt: T0 - 8 * DAY }));
    ledger.record(entry(2, { receivedAt: T0 - 6 * DAY }));
    await runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-2"]);
    now = T0 + 2 * DAY;
    expect(ledger.prune()).toBe(1);
    expect(ledger.count()).toBe(0);
  });

  it("keeps at most maxEntries rows, the newest", async () => {
    ledger.close();
    ledger = make({ maxEntries: 3 });
    for (let i = 1; i <= 5; i++) ledger.record(entry(i));
    await runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-5", "d-4", "d-3"]);
  });

  it("keeps exactly maxEntries rows over many writes, and after pruning by age (the counts kept in memory stay true)", async () => {
    ledger.close();
    ledger = make({ maxEntries: 3 });
    for (let i = 1; i <= 5; i++) ledger.record(entry(i));
    await runScheduled();
    for (let i = 6; i <= 7; i++) ledger.record(entry(i));
    await runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-7", "d-6", "d-5"]);
    now = T0 + 8 * DAY;
    ledger.record(entry(8, { receivedAt: now }));
    await runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-8"]);
    for (let i = 9; i <= 12; i++) ledger.record(entry(i, { receivedAt: now + i }));
    await runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-12", "d-11", "d-10"]);
  });

  it("a failed write is logged without headers or body and the batch dropped; later writes work again", async () => {
    database.db.exec("ALTER TABLE deliveries RENAME TO deliveries_gone");
    ledger.record(entry(1, { headers: { "x-secret-ish": "hdr-value" }, body: Buffer.from("body-value") }));
    await runScheduled();
    const failure = log.lines.find((l) => l.message.startsWith("delivery ledger write failed"));
    expect(failure?.meta).toMatchObject({ dropped: 1 });
    expect(JSON.stringify(log.lines)).not.toMatch(/hdr-value|body-value/);
    database.db.exec("ALTER TABLE deliveries_gone RENAME TO deliveries");
    ledger.record(entry(2));
    await runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-2"]);
  });

  it("a failed ledger write fails alone: another write of the same group commit (a run, an idempotency record) is kept", async () => {
    database.db.exec("CREATE TABLE other_work (x TEXT)");
    const kept = database.batch.stage(() => database.db.prepare("INSERT INTO other_work (x) VALUES ('run')").run());
    database.db.exec("ALTER TABLE deliveries RENAME TO deliveries_gone");
    ledger.record(entry(1));
    await runScheduled();
    await expect(kept).resolves.toMatchObject({ changes: 1 });
    expect(database.db.prepare("SELECT x FROM other_work").all()).toEqual([{ x: "run" }]);
    expect(log.lines.some((l) => l.message.startsWith("delivery ledger write failed"))).toBe(true);
  });

  it("a damaged table (a column missing) is dropped and created again, empty, at start", () => {
    ledger.close();
    database.db.exec("DROP TABLE deliveries; CREATE TABLE deliveries (id TEXT)");
    ledger = make();
    expect(ledger.count()).toBe(0);
    expect(log.lines.some((l) => l.level === "error" && l.message.includes("delivery ledger table") && l.message.includes("damaged"))).toBe(true);
  });

  it("storeBodies false keeps neither headers, body nor answer", async () => {
    ledger.close();
    ledger = make({ storeBodies: false });
    ledger.record(entry(1));
    await runScheduled();
    const d = ledger.get("d-1")!;
    expect(d).toMatchObject({ bodyStored: false, headers: {} });
    expect(d.body).toBeUndefined();
    expect(d.response).toBeUndefined();
  });

  it("a body that is not UTF-8 comes back as bodyBase64", async () => {
    ledger.record(entry(1, { body: Buffer.from([0xff, 0xfe, 0x00]) }));
    await runScheduled();
    const d = ledger.get("d-1")!;
    expect(d.body).toBeUndefined();
    expect(d.bodyBase64).toBe("//4A");
  });

  it("filters by status range, hook, since and before; finds the delivery of a run", async () => {
    ledger.record(entry(1, { status: 404, hook: "x", code: "not_found" }));
    ledger.record(entry(2, { status: 202, hook: "crm", runIds: ["run-a"] }));
    ledger.record(entry(3, { status: 401, hook: "crm", receivedAt: T0 + 10_000 }));
    await runScheduled();
    const ids = (q: Parameters<LedgerStore["list"]>[0]) => ledger.list(q)!.map((d) => d.id);
    expect(ids({ limit: 10, status: [400, 499] })).toEqual(["d-3", "d-1"]);
    expect(ids({ limit: 10, hook: "crm" })).toEqual(["d-3", "d-2"]);
    expect(ids({ limit: 10, since: T0 + 5000 })).toEqual(["d-3"]);
    expect(ids({ limit: 10, before: "d-3" })).toEqual(["d-2", "d-1"]);
    expect(ledger.list({ limit: 10, before: "nope" })).toBeUndefined();
    expect(ledger.deliveryOfRun("run-a")).toBe("d-2");
    expect(ledger.lastReceivedAt()).toBe(T0 + 10_000);
  });

  it("stores the event, the repeat and waited flags and the answer's headers, and reads them back (list, get, subscribers)", async () => {
    const seen: DeliverySummary[] = [];
    ledger.subscribe((d) => seen.push(d));
    ledger.record(entry(1, { event: "pull_request.opened", repeat: true, waited: true, responseHeaders: { "idempotent-replayed": "true" } }));
    ledger.record(entry(2));
    await runScheduled();
    const [second, first] = ledger.list({ limit: 10 })!;
    expect(first).toMatchObject({ id: "d-1", event: "pull_request.opened", repeat: true, waited: true });
    expect(second).not.toHaveProperty("event");
    expect(second).not.toHaveProperty("repeat");
    expect(second).not.toHaveProperty("waited");
    expect(ledger.get("d-1")!.responseHeaders).toEqual({ "idempotent-replayed": "true" });
    expect(ledger.get("d-2")!.responseHeaders).toBeUndefined();
    expect(seen[0]).toEqual(first);
    expect(seen[0]).not.toHaveProperty("responseHeaders");
  });

  it("search finds a delivery by a word of its body, its event, its hook or its status code, every word's terms matched whole", async () => {
    ledger.record(entry(1, { hook: "github", event: "pull_request.opened", status: 202, body: Buffer.from('{"title":"Fix the flaky build"}') }));
    ledger.record(entry(2, { hook: "stripe", event: "invoice.paid", status: 200, body: Buffer.from('{"customer":"Zoë Lindqvist"}') }));
    ledger.record(entry(3, { hook: "nowhere", status: 404, code: "not_found", body: Buffer.from("plain text, flaky too") }));
    await runScheduled();
    const ids = (search: string, over: Partial<Parameters<LedgerStore["list"]>[0]> = {}) => ledger.list({ limit: 10, search, ...over })!.map((d) => d.id);
    expect(ids("flaky")).toEqual(["d-3", "d-1"]);
    expect(ids("flaky build")).toEqual(["d-1"]);
    expect(ids("pull_request")).toEqual(["d-1"]);
    expect(ids("invoice")).toEqual(["d-2"]);
    expect(ids("zoe")).toEqual(["d-2"]);
    expect(ids("Lindqvist")).toEqual(["d-2"]);
    // Whole terms: no prefix (FTS5 merges every term with a prefix, over the whole index: a cost the bodies set).
    expect(ids("Lind")).toEqual([]);
    // A word's terms need not be next to each other (the index keeps no positions).
    expect(ids("build.flaky")).toEqual(["d-1"]);
    expect(ids("!!!")).toEqual([]);
    expect(ids("stripe")).toEqual(["d-2"]);
    expect(ids("404")).toEqual(["d-3"]);
    expect(ids("flaky", { hook: "github" })).toEqual(["d-1"]);
    expect(ids("nothing-like-this")).toEqual([]);
    // FTS syntax typed by a user is text, never an operator or a column filter.
    expect(ids("flaky OR invoice")).toEqual([]);
    expect(ids("hook:stripe")).toEqual([]);
    expect(ids('"flaky')).toEqual(["d-3", "d-1"]);
    expect(ids("   ")).toEqual(["d-3", "d-2", "d-1"]);
  });

  it("a pruned delivery leaves the search index, and a body that was not stored is not searched", async () => {
    ledger.close();
    ledger = make({ maxEntries: 2 });
    ledger.record(entry(1, { body: Buffer.from('{"word":"alpha"}') }));
    ledger.record(entry(2, { body: Buffer.from('{"word":"alpha"}') }));
    ledger.record(entry(3, { body: Buffer.from('{"word":"alpha"}') }));
    await runScheduled();
    expect(ledger.list({ limit: 10, search: "alpha" })!.map((d) => d.id)).toEqual(["d-3", "d-2"]);
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM deliveries_fts").get()).toEqual({ n: 2 });
    ledger.close();
    ledger = make({ storeBodies: false });
    ledger.record(entry(4, { body: Buffer.from('{"word":"omega"}') }));
    await runScheduled();
    expect(ledger.list({ limit: 10, search: "omega" })).toEqual([]);
  });

  it("a damaged table created again gets the search index back, empty, and searchable rows after it", async () => {
    ledger.record(entry(1, { body: Buffer.from('{"word":"before"}') }));
    await runScheduled();
    ledger.close();
    database.db.exec("DROP TABLE deliveries; CREATE TABLE deliveries (id TEXT)");
    ledger = make();
    expect(ledger.list({ limit: 10, search: "before" })).toEqual([]);
    ledger.record(entry(2, { body: Buffer.from('{"word":"after"}'), event: "ping" }));
    await runScheduled();
    expect(ledger.list({ limit: 10, search: "after" })!.map((d) => [d.id, d.event])).toEqual([["d-2", "ping"]]);
  });
  it("regression: a search index missing at start (left by a crash or a full disk while the table was created again) refused the ledger and the whole start; now it is built again from the rows, which are kept", async () => {
    ledger.record(entry(1, { body: Buffer.from('{"word":"kept egret"}'), event: "ping" }));
    await runScheduled();
    ledger.close();
    database.db.exec("DROP TABLE deliveries_fts");
    ledger = make();
    expect(log.lines.some((l) => l.level === "error" && l.message.includes("search index") && l.message.includes("built again from the stored rows"))).toBe(
      true,
    );
    expect(ledger.list({ limit: 10, search: "egret" })!.map((d) => d.id)).toEqual(["d-1"]);
    ledger.record(entry(2, { body: Buffer.from('{"word":"new egret"}') }));
    await runScheduled();
    expect(ledger.list({ limit: 10, search: "egret" })!.map((d) => d.id)).toEqual(["d-2", "d-1"]);
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
  });

  it("a full database (SQLITE_FULL while a batch or an index step is written) drops the batch's rows, never a stored row's index entry: the index stays what the rows give, and recording and indexing resume", async () => {
    ledger.close();
    ledger = make({ maxEntries: 60 });
    const big = (n: number) => Buffer.from(Array.from({ length: 300 }, (_, i) => `t${n}x${i}`).join(" "));
    let n = 0;
    let failed = 0;
    const drifts: Array<ReturnType<typeof indexDrift>> = [];
    for (let round = 0; round < 40; round++) {
      // Every other round the file may grow by 0 to 6 pages only: some of those batches do not fit.
      const pages = database.db.pragmaValue("page_count") as number;
      database.db.pragma(`max_page_count = ${round % 2 === 0 ? pages + (round % 7) : 1_000_000}`);
      const logged = log.lines.length;
      for (let i = 0; i < 6; i++) ledger.record(entry(++n, { body: big(n), ...(i % 3 === 0 ? { refused: true, status: 429, client: "c" } : {}) }));
      await runScheduled();
      if (log.lines.slice(logged).some((l) => l.message.startsWith("delivery ledger write failed") && l.meta?.code === "SQLITE_FULL")) failed++;
      const rows = ledger.count();
      // The index steps with the same little room, or none: a step that does not fit changes nothing, and no row is lost.
      if (round % 4 === 0) database.db.pragma(`max_page_count = ${database.db.pragmaValue("page_count") as number}`);
      try {
        ledger.index();
      } catch (e) {
        if ((e as { code?: string }).code !== "SQLITE_FULL") throw e;
      }
      expect(ledger.count()).toBe(rows);
      database.db.pragma("max_page_count = 1000000");
      const drift = indexDrift(database);
      if (drift.missing.length + drift.stale.length > 0) drifts.push(drift);
    }
    expect(failed).toBeGreaterThan(0);
    ledger.index();
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
    expect(drifts).toEqual([]);
    expect(ledger.count()).toBe(60);
    expect(ledger.list({ limit: 1, search: `t${n}x299` })!.map((d) => d.id)).toEqual([`d-${n}`]);
  });

  it("an index step that finds the disk full changes nothing: the rows stay stored, unindexed, and a later step indexes them (the accept turn's commit wrote no index entry)", async () => {
    for (let i = 1; i <= 30; i++)
      ledger.record(entry(i, { body: Buffer.from(`{"note":"sandpiper n${i} ${Array.from({ length: 400 }, (_, k) => `w${i}x${k}`).join(" ")}"}`) }));
    ledger.flush();
    // Committed with the turn's group commit (synchronously, in this turn), not indexed: that commit wrote no FTS row.
    expect(ledger.count()).toBe(30);
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get()).toEqual({ n: 0 });
    expect(database.db.pragmaValue("freelist_count")).toBe(0);
    database.db.pragma(`max_page_count = ${database.db.pragmaValue("page_count") as number}`);
    expect(() => ledger.index()).toThrow(expect.objectContaining({ code: "SQLITE_FULL" }));
    // The background's try logs and waits (the next write or the timer).
    expect(ledger.list({ limit: 1, search: "sandpiper" })).toEqual([]);
    expect(log.lines.some((l) => l.message.startsWith("indexing the delivery ledger for search failed") && l.meta?.code === "SQLITE_FULL")).toBe(true);
    expect(ledger.count()).toBe(30);
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get()).toEqual({ n: 0 });
    database.db.pragma("max_page_count = 1000000");
    expect(ledger.list({ limit: 50, search: "sandpiper" })!.length).toBe(30);
    expect(ledger.list({ limit: 5, search: "n17" })!.map((d) => d.id)).toEqual(["d-17"]);
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
  });

  it("a crash between the accept turn's commit and the index step leaves the rows stored and unindexed: the next start indexes them on a later turn, never in the start, and a search right after the start finds them", async () => {
    for (let i = 1; i <= 700; i++) ledger.record(entry(i, { body: Buffer.from(`{"note":"curlew c${i}"}`) }));
    ledger.flush();
    // The process ends here (the file as a kill -9 leaves it: the group commit done, no index step yet, no close).
    database.close();
    ledger.close();
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const indexed = () => database.db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get()!.n;
    ledger = make({ maxEntries: 10_000 });
    expect(indexed()).toBe(0);
    expect(ledger.count()).toBe(700);
    // From the next turn on, in steps (INDEX_STEP_ROWS rows each): the first turn indexes no more than one.
    await new Promise((resolve) => setImmediate(resolve));
    expect(indexed()).toBeGreaterThan(0);
    expect(indexed()).toBeLessThanOrEqual(INDEX_STEP_ROWS);
    expect(ledger.list({ limit: 5, search: "c700" })!.map((d) => d.id)).toEqual(["d-700"]);
    expect(indexed()).toBe(700);
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
  });

  it("regression: a search behind a backlog of fresh rows indexed 16 steps (4 MiB of bodies) first and held the event loop 63 ms behind 10,000 rows of 64 KiB; now at most SEARCH_CATCH_UP_STEPS steps, the rest left to the background", async () => {
    const rows = (2 * SEARCH_CATCH_UP_STEPS + 1) * INDEX_STEP_ROWS;
    ledger.close();
    ledger = make({ maxEntries: 10_000 });
    for (let i = 1; i <= rows; i++) ledger.record(entry(i, { body: Buffer.from(`{"note":"godwit g${i}"}`) }));
    ledger.flush();
    const indexed = () => database.db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get()!.n;
    expect(indexed()).toBe(0);
    // In the same turn as the flush: no background step has run, so the search's own steps are all there is.
    expect(ledger.list({ limit: 1, search: "g1" })!.map((d) => d.id)).toEqual(["d-1"]);
    expect(indexed()).toBe(SEARCH_CATCH_UP_STEPS * INDEX_STEP_ROWS);
    // A second search indexes the next SEARCH_CATCH_UP_STEPS steps; the newest rows are found once the background indexed them.
    expect(ledger.list({ limit: 1, search: `g${rows}` })).toEqual([]);
    expect(indexed()).toBe(2 * SEARCH_CATCH_UP_STEPS * INDEX_STEP_ROWS);
    ledger.index();
    expect(ledger.list({ limit: 1, search: `g${rows}` })!.map((d) => d.id)).toEqual([`d-${rows}`]);
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
  });

  it("a search right after a flush finds the rows just written (it first indexes what is pending), and rows pruned before their index step never reach FTS5's 'delete'", async () => {
    ledger.close();
    ledger = make({ maxEntries: 3 });
    for (let i = 1; i <= 6; i++) ledger.record(entry(i, { body: Buffer.from(`{"note":"dunlin d${i}"}`) }));
    ledger.flush();
    expect(ledger.list({ limit: 10, search: "dunlin" })!.map((d) => d.id)).toEqual(["d-6", "d-5", "d-4", "d-3", "d-2", "d-1"]);
    for (let i = 7; i <= 12; i++) ledger.record(entry(i, { body: Buffer.from(`{"note":"dunlin d${i}"}`) }));
    ledger.flush();
    // Pruned to 3 rows before any index step of rows 7–12: rows 1–6 leave the index, 7–9 go unindexed, 10–12 stay.
    expect(ledger.prune()).toBe(9);
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
    expect(ledger.list({ limit: 10, search: "dunlin" })!.map((d) => d.id)).toEqual(["d-12", "d-11", "d-10"]);
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get()).toEqual({ n: 3 });
  });

  it("regression: a search index damaged while running failed the whole group commit, a run staged with the ledger's rows included (FTS5 wrote the rows' index terms only at the commit); now the accept turn's write touches no index: runs and rows are kept, and the index steps fail alone", async () => {
    ledger.close();
    ledger = make({ maxEntries: 10_000 });
    for (let batch = 0; batch < 3; batch++) {
      for (let i = 0; i < 20; i++) ledger.record(entry(batch * 100 + i));
      await runScheduled();
      ledger.index();
    }
    const raw = writableShadowTables(database.file);
    raw.exec(DAMAGE_INDEX_SEGMENTS);
    raw.close();
    database.db.exec("CREATE TABLE other_work (x TEXT)");
    const other = database.db.prepare("INSERT INTO other_work (x) VALUES ('run')");
    const refused: string[] = [];
    const stepsFailed: string[] = [];
    for (let k = 0; k < 40; k++) {
      // The run first, the ledger's rows last in the group commit (ledger.flush() stages them and commits).
      const run = database.batch.stage(() => other.run());
      for (let i = 0; i < 5; i++) ledger.record(entry(1000 + k * 10 + i));
      ledger.flush();
      await run.catch((e: Error) => refused.push(e.message));
      try {
        ledger.index();
      } catch (e) {
        stepsFailed.push((e as Error).message);
      }
    }
    expect(stepsFailed.length).toBeGreaterThan(0);
    expect(log.lines.filter((l) => l.message.startsWith("delivery ledger write failed"))).toEqual([]);
    expect(refused).toEqual([]);
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM other_work").get()).toEqual({ n: 40 });
    expect(ledger.count()).toBe(260);
  });

  it("the search index holds exactly what indexing the rows afresh gives, after folded 429s, batches run again write by write, bodies that are not UTF-8, and pruning by count, share and age", async () => {
    ledger.close();
    ledger = make({ maxEntries: 20, retentionDays: 1 });
    database.db.exec("CREATE TABLE other_work (x INTEGER CHECK (x > 0))");
    const other = database.db.prepare<[number]>("INSERT INTO other_work (x) VALUES (?)");
    const maxTimes = database.db.prepare<[], { t: number | null }>("SELECT MAX(times) AS t FROM deliveries");
    let n = 0;
    let folded = 0;
    const drifts: Array<ReturnType<typeof indexDrift>> = [];
    for (let round = 0; round < 90; round++) {
      for (let i = 0; i < 8; i++) {
        n++;
        const kind = n % 4;
        const over: Partial<LedgerEntry> =
          kind === 0 || kind === 3
            ? { refused: true, status: 429, client: `c${n % 2}`, hook: `h${n % 5}`, event: `e${n}` }
            : kind === 1
              ? { refused: true, status: 401, client: `c${n}` }
              : { event: `ev${n}` };
        // Some bodies are not UTF-8 or hold a NUL: indexed and taken out as the same text all the same.
        const body =
          n % 5 === 0 ? Buffer.concat([Buffer.from(`w${n} `), Buffer.from([0xff, 0xfe, 0x00, 0xc3]), Buffer.from(` v${n}`)]) : Buffer.from(`{"word":"w${n}"}`);
        ledger.record(entry(n, { receivedAt: now + i * 1000, body, ...over }));
      }
      // A failing write in the same group commit: the batch runs again, each write in its savepoint.
      if (round % 3 === 0) void database.batch.stage(() => other.run(-1)).catch(() => undefined);
      if (round % 3 === 1) void database.batch.stage(() => other.run(1));
      await runScheduled();
      folded = Math.max(folded, maxTimes.get()!.t ?? 0);
      // Every other round the rows of the last are pruned before their index step (none ever given to FTS5's 'delete').
      if (round % 2 === 0) ledger.index();
      const drift = indexDrift(database);
      if (drift.missing.length + drift.stale.length > 0) drifts.push(drift);
      // 30 minutes a round: 429s of one round fold, and rows pass the retention of one day.
      now += 1_800_000;
    }
    // Every limit was passed and some rows stand for several 429s.
    expect(ledger.count()).toBe(20);
    expect(folded).toBeGreaterThan(1);
    expect(drifts).toEqual([]);
    ledger.index();
    expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
  });
});

/**
 * What the search index holds that indexing the current rows afresh would not (`stale`:
 * words of rows gone or changed), and the reverse (`missing`), as `term:row:column:offset`.
 */
function indexDrift(database: PluginDatabase): { missing: string[]; stale: string[] } {
  const { db } = database;
  // The rows up to the index's watermark (its highest rowid, ledger-index.ts): the ones above it are not indexed yet.
  const through = db.prepare<[], { rowid: number }>("SELECT rowid FROM deliveries_fts ORDER BY rowid DESC LIMIT 1").get()?.rowid ?? 0;
  db.exec("CREATE VIRTUAL TABLE temp.live_terms USING fts5vocab(main, deliveries_fts, instance)");
  db.exec(
    `CREATE VIRTUAL TABLE fresh_fts USING fts5(hook, event, status, body, content='', detail=none); ${LEDGER_INDEX_IDS_SCHEMA.split("\n")
      .find((l) => l.includes("INSERT INTO deliveries_fts"))!
      .replace("deliveries_fts", "fresh_fts")
      .replace("FROM deliveries;", `FROM deliveries WHERE seq <= ${through};`)}`,
  );
  db.exec("CREATE VIRTUAL TABLE temp.fresh_terms USING fts5vocab(main, fresh_fts, instance)");
  const terms = (t: string) =>
    new Set(
      db
        .prepare<[], { k: string }>(`SELECT term || ':' || doc || ':' || coalesce(col, '') || ':' || coalesce(offset, '') AS k FROM ${t}`)
        .all()
        .map((r) => r.k),
    );
  const live = terms("temp.live_terms");
  const fresh = terms("temp.fresh_terms");
  db.exec("DROP TABLE temp.live_terms; DROP TABLE temp.fresh_terms; DROP TABLE fresh_fts");
  return { missing: [...fresh].filter((k) => !live.has(k)), stale: [...live].filter((k) => !fresh.has(k)) };
}

/**
 * A database written at schema `version` (its migrations only) and seeded by `seed`,
 * then opened as the plugin opens it (migrated to the current schema) for `check`.
 */
function upgraded(
  version: number,
  seed: (raw: SqliteDatabase) => void,
  check: (database: PluginDatabase, log: ReturnType<typeof recordingLogger>) => void,
): void {
  const tmp = tempDir(`iw-ledger-m${version + 1}-`);
  const log = recordingLogger("ledger");
  try {
    const raw = openSqlite(path.join(tmp.dir, "old.sqlite"));
    migrate(raw, MIGRATIONS.slice(0, version));
    seed(raw);
    raw.close();
    const database = openPluginDatabase({ dir: tmp.dir, fileName: "old.sqlite", logger: log.logger });
    try {
      check(database, log);
    } finally {
      database.close();
    }
  } finally {
    log.close();
    tmp.remove();
  }
}

describe("ledger migration 4 (event, flags, search index)", () => {
  it("a schema-3 database keeps its deliveries, and they become searchable", () => {
    upgraded(
      3,
      (raw) => {
        raw
          .prepare(
            "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, body, body_stored) VALUES ('old-1', 1, 'POST', '/hooks/crm', 'crm', '::1', 202, 2, ?, 1)",
          )
          .run(Buffer.from('{"note":"kept across the upgrade"}'));
      },
      (database, log) => {
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100 });
        expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
        expect(ledger.list({ limit: 10, search: "upgrade" })!.map((d) => d.id)).toEqual(["old-1"]);
        expect(ledger.get("old-1")).not.toHaveProperty("event");
        ledger.close();
      },
    );
  });
});

describe("ledger migration 5 (refused rows)", () => {
  it("a schema-4 database keeps its deliveries; its 401 and 429 rows become refused rows without their bodies, no longer found by a word of the body", () => {
    upgraded(
      4,
      (raw) => {
        const insert = raw.prepare<[string, number, Buffer]>(
          "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, body, body_stored) VALUES (?, 1, 'POST', '/hooks/crm', 'crm', '::1', ?, 2, ?, 1)",
        );
        insert.run("ok-1", 202, Buffer.from('{"note":"accepted flamingo"}'));
        insert.run("bad-1", 401, Buffer.from('{"note":"refused pelican"}'));
        insert.run("slow-1", 429, Buffer.from('{"note":"throttled pelican"}'));
      },
      (database, log) => {
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100 });
        expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
        const rows = database.db
          .prepare<[], { id: string; refused: number; times: number; body_stored: number; body: Buffer | null }>(
            "SELECT id, refused, times, body_stored, body FROM deliveries ORDER BY seq",
          )
          .all();
        expect(rows.map((r) => [r.id, r.refused, r.times, r.body_stored, r.body === null])).toEqual([
          ["ok-1", 0, 1, 1, false],
          ["bad-1", 1, 1, 0, true],
          ["slow-1", 1, 1, 0, true],
        ]);
        expect(ledger.list({ limit: 10, search: "pelican" })).toEqual([]);
        expect(ledger.list({ limit: 10, search: "flamingo" })!.map((d) => d.id)).toEqual(["ok-1"]);
        expect(ledger.count()).toBe(3);
        ledger.close();
      },
    );
  });
});

describe("ledger migration 6 (the search index written by the ledger, not by triggers)", () => {
  it("a schema-5 database loses the index triggers, keeps its rows searchable, and rows written and pruned after it come and go with their index entries", () => {
    upgraded(
      5,
      (raw) => {
        raw
          .prepare(
            "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, body, body_stored) VALUES ('old-1', ?, 'POST', '/hooks/crm', 'crm', '::1', 202, 2, ?, 1)",
          )
          .run(T0, Buffer.from('{"note":"written under the triggers heron"}'));
      },
      (database, log) => {
        let now = T0;
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 1, maxEntries: 100, clock: () => now });
        expect(database.db.prepare("SELECT name FROM sqlite_master WHERE type = 'trigger'").all()).toEqual([]);
        ledger.record(entry(1, { body: Buffer.from('{"note":"written directly heron"}') }));
        ledger.flush();
        expect(ledger.list({ limit: 10, search: "heron" })!.map((d) => d.id)).toEqual(["d-1", "old-1"]);
        const indexed = () => database.db.prepare("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get();
        expect(indexed()).toEqual({ n: 2 });
        // Pruned by age from the timer's path (its own transaction): both rows and both index entries go.
        now = T0 + 2 * DAY;
        expect(ledger.prune()).toBe(2);
        expect(indexed()).toEqual({ n: 0 });
        expect(ledger.list({ limit: 10, search: "heron" })).toEqual([]);
        ledger.close();
      },
    );
  });
});

describe("ledger migration 7 (rows taken out of the search index with their own values)", () => {
  it("a schema-6 database gets an index without contentless_delete, built from its rows; rows pruned later leave it and it stays consistent", () => {
    upgraded(
      6,
      (raw) => {
        raw
          .prepare(
            "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, body, body_stored) VALUES ('old-1', ?, 'POST', '/hooks/crm', 'crm', '::1', 202, 2, ?, 1)",
          )
          .run(T0, Buffer.from('{"note":"from before the upgrade ibis"}'));
        raw.exec("INSERT INTO deliveries_fts (rowid, hook, event, status, body) SELECT seq, hook, event, status, CAST(body AS TEXT) FROM deliveries");
      },
      (database, log) => {
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 3, clock: () => T0 });
        const ftsSql = database.db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'deliveries_fts'").get()!.sql;
        expect(ftsSql).not.toContain("contentless_delete");
        const ids = (word: string) => ledger.list({ limit: 10, search: word })!.map((d) => d.id);
        expect(ids("ibis")).toEqual(["old-1"]);
        // A body past the indexed 64 KiB (its late word is not indexed, so not taken out either), a body not stored, an event.
        ledger.record(entry(1, { body: Buffer.from(`{"a":"early kestrel","pad":"${"x ".repeat(40_000)}","b":"late kestrel"}`) }));
        ledger.record(entry(2, { event: "ping", status: 404, body: undefined }));
        ledger.record(entry(3, { body: Buffer.from('{"note":"plover"}') }));
        ledger.record(entry(4, { body: Buffer.from('{"note":"plover again"}') }));
        ledger.flush();
        ledger.prune();
        // maxEntries 3: old-1 and d-1 went, with their index entries.
        expect(ledger.count()).toBe(3);
        expect(ids("ibis")).toEqual([]);
        expect(ids("kestrel")).toEqual([]);
        expect(ids("ping")).toEqual(["d-2"]);
        expect(ids("plover")).toEqual(["d-4", "d-3"]);
        // The index itself (not only the listing, which joins the rows) forgets the pruned rows' words.
        const indexed = (word: string) =>
          database.db.prepare<[string], { rowid: number }>("SELECT rowid FROM deliveries_fts WHERE deliveries_fts MATCH ?").all(word).length;
        expect([indexed("ibis"), indexed("kestrel"), indexed("plover"), indexed("ping")]).toEqual([0, 0, 2, 1]);
        // The status is indexed as the row holds it (200), not as a number bound from JavaScript ("200.0").
        expect([indexed("200"), indexed("0")]).toEqual([2, 0]);
        expect(database.db.prepare("SELECT COUNT(*) AS n FROM deliveries_fts_docsize").get()).toEqual({ n: 3 });
        ledger.close();
      },
    );
  });
});

describe("ledger migration 10 (the search index of row ids only)", () => {
  it("a schema-9 database gets an index without positions (detail=none), built from its rows, which stay searchable", () => {
    upgraded(
      9,
      (raw) => {
        raw
          .prepare(
            "INSERT INTO deliveries (id, received_at, method, url, hook, event, client, status, latency_ms, body, body_stored) VALUES ('old-1', ?, 'POST', '/hooks/crm', 'crm', 'deal.won', '::1', 202, 2, ?, 1)",
          )
          .run(T0, Buffer.from('{"note":"from before the upgrade shrike"}'));
        raw.exec("INSERT INTO deliveries_fts (rowid, hook, event, status, body) SELECT seq, hook, event, status, CAST(body AS TEXT) FROM deliveries");
      },
      (database, log) => {
        const ftsSql = database.db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'deliveries_fts'").get()!.sql;
        expect(ftsSql).toContain("detail=none");
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100, clock: () => T0 });
        const ids = (word: string) => ledger.list({ limit: 10, search: word })!.map((d) => d.id);
        expect([ids("shrike"), ids("won"), ids("crm"), ids("202")]).toEqual([["old-1"], ["old-1"], ["old-1"], ["old-1"]]);
        expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
        ledger.close();
      },
    );
  });
});

describe("ledger table damaged before an upgrade", () => {
  it("regression: a schema-6 database whose ledger table was missing refused to open (migration 7 indexes the table's rows); now the table is created again, empty, and the database migrated", () => {
    upgraded(
      6,
      (raw) => raw.exec("DROP TABLE deliveries"),
      (database, log) => {
        expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
        expect(log.lines.some((l) => l.level === "warn" && l.message.includes("delivery ledger table was missing"))).toBe(true);
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100, clock: () => T0 });
        ledger.record(entry(1, { body: Buffer.from('{"note":"after the repair avocet"}') }));
        ledger.flush();
        expect(ledger.list({ limit: 10, search: "avocet" })!.map((d) => d.id)).toEqual(["d-1"]);
        ledger.close();
      },
    );
  });

  it("regression: a schema-4 database whose search index was missing refused to open (migration 5 reads deliveries_fts); now the index is built again from the rows, which are kept", () => {
    upgraded(
      4,
      (raw) => {
        raw
          .prepare(
            "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, body, body_stored) VALUES ('old-1', 1, 'POST', '/hooks/crm', 'crm', '::1', 202, 2, ?, 1)",
          )
          .run(Buffer.from('{"note":"kept without its index pipit"}'));
        raw.exec("DROP TABLE deliveries_fts");
      },
      (database, log) => {
        expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
        expect(log.lines.some((l) => l.level === "error" && l.message.includes("search index") && l.message.includes("built again"))).toBe(true);
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100, clock: () => T0 });
        expect(ledger.list({ limit: 10, search: "pipit" })!.map((d) => d.id)).toEqual(["old-1"]);
        expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
        ledger.close();
      },
    );
  });

  it("regression: a schema-5 database whose ledger table lacked a column refused to open; now it is dropped and created again at schema 5, then migrated, and runs are kept", () => {
    upgraded(
      5,
      (raw) => {
        raw.exec("INSERT INTO runs (id, seq, status, action, source, created_at) VALUES ('run-1', 1, 'succeeded', '{}', '{}', '2026-03-01T12:00:00Z')");
        raw.exec("DROP TABLE deliveries; CREATE TABLE deliveries (id TEXT)");
      },
      (database, log) => {
        expect(database.db.pragmaValue("user_version")).toBe(MIGRATIONS.length);
        expect(log.lines.some((l) => l.level === "error" && l.message.includes("delivery ledger table") && l.message.includes("damaged"))).toBe(true);
        expect(database.db.prepare("SELECT id FROM runs").all()).toEqual([{ id: "run-1" }]);
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100, clock: () => T0 });
        expect(ledger.count()).toBe(0);
        ledger.record(entry(1, { body: Buffer.from('{"note":"godwit"}') }));
        ledger.flush();
        expect(ledger.list({ limit: 10, search: "godwit" })!.map((d) => d.id)).toEqual(["d-1"]);
        expect(indexDrift(database)).toEqual({ missing: [], stale: [] });
        ledger.close();
      },
    );
  });
});

describe("ledger rows stored before the one redaction rule", () => {
  it("a row written with a password in its URL's userinfo and a header shows neither in the listing nor in the detail (redacted on read)", () => {
    upgraded(
      MIGRATIONS.length,
      (raw) => {
        raw
          .prepare(
            "INSERT INTO deliveries (id, received_at, method, url, hook, client, status, latency_ms, headers, body, body_stored) VALUES ('old-1', 1, 'POST', ?, 'wake', '::1', 200, 2, ?, ?, 1)",
          )
          .run(
            "http://alice:s3cret-pw@127.0.0.1:8080/hooks/wake?api_key=k-123",
            JSON.stringify({ referer: "https://bob:s3cret-pw@example.com/" }),
            Buffer.from("{}"),
          );
        raw.exec("INSERT INTO deliveries_fts (rowid, hook, event, status, body) SELECT seq, hook, event, status, CAST(body AS TEXT) FROM deliveries");
      },
      (database, log) => {
        const ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 100_000, maxEntries: 100 });
        expect(ledger.list({ limit: 10 })!.map((d) => d.url)).toEqual(["http://[REDACTED]@127.0.0.1:8080/hooks/wake?api_key=[REDACTED]"]);
        const detail = ledger.get("old-1")!;
        expect(detail.headers).toEqual({ referer: "https://[REDACTED]@example.com/" });
        expect(JSON.stringify(detail)).not.toContain("s3cret-pw");
        ledger.close();
      },
    );
  });
});
