/**
 * The ledger store on its own: batching (one transaction per flush), retention by
 * age and by count against an injected clock, write failures (logged without
 * content, dropped), damaged tables at start, and what `storeBodies: false` keeps.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createLedgerStore, type LedgerEntry, type LedgerStore } from "../../src/store/ledger-store";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

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
  let pending: Array<() => void>;
  let ledger: LedgerStore;
  const make = (over: Partial<Parameters<typeof createLedgerStore>[1]> = {}) =>
    createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries: 100, clock: () => now, schedule: (fn) => void pending.push(fn), ...over });

  beforeEach(() => {
    tmp = tempDir("iw-ledger-");
    log = recordingLogger("ledger");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    now = T0;
    pending = [];
    ledger = make();
  });
  afterEach(() => {
    ledger.close();
    database.close();
    log.close();
    tmp.remove();
  });
  const runScheduled = () => pending.splice(0).forEach((fn) => fn());

  it("buffers rows until the scheduled flush, then writes them all (one flush per turn)", () => {
    ledger.record(entry(1));
    ledger.record(entry(2));
    expect(pending).toHaveLength(1);
    expect(ledger.count()).toBe(0);
    runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-2", "d-1"]);
  });

  it("tells subscribers about each row once it is written", () => {
    const seen: string[] = [];
    const off = ledger.subscribe((d) => seen.push(d.id));
    ledger.record(entry(1));
    expect(seen).toEqual([]);
    runScheduled();
    off();
    ledger.record(entry(2));
    runScheduled();
    expect(seen).toEqual(["d-1"]);
  });

  it("prunes rows older than retentionDays, by the injected clock", () => {
    ledger.record(entry(1, { receivedAt: T0 - 8 * DAY }));
    ledger.record(entry(2, { receivedAt: T0 - 6 * DAY }));
    runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-2"]);
    now = T0 + 2 * DAY;
    expect(ledger.prune()).toBe(1);
    expect(ledger.count()).toBe(0);
  });

  it("keeps at most maxEntries rows, the newest", () => {
    ledger.close();
    ledger = make({ maxEntries: 3 });
    for (let i = 1; i <= 5; i++) ledger.record(entry(i));
    runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-5", "d-4", "d-3"]);
  });

  it("a failed write is logged without headers or body and the batch dropped; later writes work again", () => {
    database.db.exec("ALTER TABLE deliveries RENAME TO deliveries_gone");
    ledger.record(entry(1, { headers: { "x-secret-ish": "hdr-value" }, body: Buffer.from("body-value") }));
    runScheduled();
    const failure = log.lines.find((l) => l.message.startsWith("delivery ledger write failed"));
    expect(failure?.meta).toMatchObject({ dropped: 1 });
    expect(JSON.stringify(log.lines)).not.toMatch(/hdr-value|body-value/);
    database.db.exec("ALTER TABLE deliveries_gone RENAME TO deliveries");
    ledger.record(entry(2));
    runScheduled();
    expect(ledger.list({ limit: 10 })!.map((d) => d.id)).toEqual(["d-2"]);
  });

  it("a damaged table (a column missing) is dropped and created again, empty, at start", () => {
    ledger.close();
    database.db.exec("DROP TABLE deliveries; CREATE TABLE deliveries (id TEXT)");
    ledger = make();
    expect(ledger.count()).toBe(0);
    expect(log.lines.some((l) => l.level === "error" && l.message.includes("delivery ledger table") && l.message.includes("damaged"))).toBe(true);
  });

  it("storeBodies false keeps neither headers, body nor answer", () => {
    ledger.close();
    ledger = make({ storeBodies: false });
    ledger.record(entry(1));
    runScheduled();
    const d = ledger.get("d-1")!;
    expect(d).toMatchObject({ bodyStored: false, headers: {} });
    expect(d.body).toBeUndefined();
    expect(d.response).toBeUndefined();
  });

  it("a body that is not UTF-8 comes back as bodyBase64", () => {
    ledger.record(entry(1, { body: Buffer.from([0xff, 0xfe, 0x00]) }));
    runScheduled();
    const d = ledger.get("d-1")!;
    expect(d.body).toBeUndefined();
    expect(d.bodyBase64).toBe("//4A");
  });

  it("filters by status range, hook, since and before; finds the delivery of a run", () => {
    ledger.record(entry(1, { status: 404, hook: "x", code: "not_found" }));
    ledger.record(entry(2, { status: 202, hook: "crm", runIds: ["run-a"] }));
    ledger.record(entry(3, { status: 401, hook: "crm", receivedAt: T0 + 10_000 }));
    runScheduled();
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
