/**
 * The ledger store on its own: batching (one write of the database's group commit per turn), retention by
 * age and by count against an injected clock, write failures (logged without
 * content, dropped), damaged tables at start, and what `storeBodies: false` keeps.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createLedgerStore, type LedgerEntry, type LedgerStore } from "../../src/store/ledger-store";
import { recordingLogger, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

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
  /** Commits the turn's group commit now and lets its promises settle (subscribers, failure logs). */
  const runScheduled = async (): Promise<void> => {
    ledger.flush();
    await new Promise((resolve) => setImmediate(resolve));
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
    ledger.subscribe((d) => seen.push(d.id), () => listening);
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
});
