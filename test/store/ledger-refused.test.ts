/**
 * Requests refused before authentication in the ledger (SPEC §11, issue 22 item 3):
 * kept without body, with bounded headers, in a bounded share of maxEntries, evicted
 * before any authenticated delivery, and a throttled client's repeated 429s as one
 * counted row. The real-gateway flood is test/e2e/ledger-flood.test.ts.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createLedgerStore, type LedgerEntry, type LedgerStore } from "../../src/store/ledger-store";
import { refusedShare } from "../../src/store/ledger-prune";
import { FOLD_WINDOW_MS, REFUSED_HEADERS_BYTES, REFUSED_URL_CHARS } from "../../src/store/ledger-refused";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

const T0 = Date.parse("2026-03-01T12:00:00Z");

/** An authenticated delivery (202, body kept). */
function delivery(n: number, over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: `ok-${n}`,
    receivedAt: T0 + n,
    method: "POST",
    url: "/hooks/agent",
    hook: "agent",
    client: "10.0.0.1",
    status: 202,
    latencyMs: 2,
    runIds: [`run-${n}`],
    headers: { "content-type": "application/json" },
    body: Buffer.from(`{"message":"m${n}"}`),
    response: { ok: true },
    ...over,
  };
}

/** A request refused before authentication, with a body the sender sent. */
function refusal(n: number, over: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    ...delivery(n),
    id: `bad-${n}`,
    client: `203.0.113.${n % 250}`,
    status: 401,
    code: "unauthorized",
    runIds: [],
    body: Buffer.alloc(4096, "x"),
    response: { ok: false, code: "unauthorized" },
    refused: true,
    ...over,
  };
}

describe("ledger: requests refused before authentication", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  let now: number;
  let ledger: LedgerStore;
  const make = (maxEntries: number) => createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries, clock: () => now });
  const ids = (query: Parameters<LedgerStore["list"]>[0]) => ledger.list(query)!.map((d) => d.id);
  /** Commits the group commit and lets its promises settle (the counts kept in memory follow). */
  /** Commits the rows, then lets the prune's later steps run (one per turn of the event loop). */
  const flush = async (): Promise<void> => {
    ledger.flush();
    for (let turn = 0; turn < 20; turn++) await new Promise((resolve) => setImmediate(resolve));
  };
  const countWhere = (where: string): number => database.db.prepare<[], { n: number }>(`SELECT COUNT(*) AS n FROM deliveries WHERE ${where}`).get()!.n;

  beforeEach(() => {
    tmp = tempDir("iw-ledger-refused-");
    log = recordingLogger("ledger");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    now = T0 + 1_000_000;
    ledger = make(100);
  });
  afterEach(() => {
    ledger.close();
    database.close();
    log.close();
    tmp.remove();
  });

  it("regression: 1,300 wrong-token requests evicted every authenticated delivery (maxEntries 1000) — now the 50 deliveries stay and refused rows keep to their share", async () => {
    ledger.close();
    ledger = make(1000);
    for (let i = 0; i < 50; i++) ledger.record(delivery(i));
    await flush();
    for (let i = 0; i < 1300; i++) ledger.record(refusal(100 + i));
    await flush();
    expect(countWhere("refused = 0")).toBe(50);
    expect(countWhere("refused = 1")).toBe(refusedShare(1000));
    expect(ids({ limit: 500, status: [200, 299] })).toEqual(Array.from({ length: 50 }, (_, i) => `ok-${49 - i}`));
    // The newest refusals are the ones kept.
    expect(ids({ limit: 1, status: [401, 401] })).toEqual(["bad-1399"]);
  });

  it("authenticated deliveries may fill all of maxEntries: over it, refused rows go first, then the oldest deliveries", async () => {
    for (let i = 0; i < 10; i++) ledger.record(refusal(i));
    for (let i = 0; i < 100; i++) ledger.record(delivery(1000 + i));
    await flush();
    expect(ledger.count()).toBe(100);
    expect(countWhere("refused = 1")).toBe(0);
    ledger.record(delivery(2000));
    await flush();
    expect(ids({ limit: 1000 })).toHaveLength(100);
    expect(ids({ limit: 1000 })).not.toContain("ok-1000");
    expect(ids({ limit: 1 })).toEqual(["ok-2000"]);
  });

  it("a refused row keeps no body whatever storeBodies says, at most REFUSED_HEADERS_BYTES of headers and a bounded URL", async () => {
    const headers = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`x-h${i}`, "v".repeat(10_000)]));
    ledger.record(refusal(1, { headers, url: `/hooks/agent?${"q".repeat(50_000)}` }));
    await flush();
    const stored = ledger.get("bad-1")!;
    expect(stored.bodyStored).toBe(false);
    expect(stored.body).toBeUndefined();
    expect(stored.refused).toBe(true);
    expect(JSON.stringify(stored.headers).length).toBeLessThanOrEqual(REFUSED_HEADERS_BYTES + 200);
    expect(stored.headers["…"]).toMatch(/^\d+ more header\(s\) not kept/);
    expect(stored.url.length).toBeLessThanOrEqual(REFUSED_URL_CHARS + 1);
    expect(stored.response).toEqual({ ok: false, code: "unauthorized" });
    expect(countWhere("body IS NOT NULL AND refused = 1")).toBe(0);
  });

  it("regression: a refused row kept the hook name of a long path whole (a flood of long unauthenticated paths stored about 16 KB a row)", async () => {
    const hook = `a/${"b".repeat(15_000)}`;
    ledger.record(refusal(1, { hook, url: `/hooks/${hook}` }));
    await flush();
    const stored = ledger.get("bad-1")!;
    expect(stored.hook).toBe(`${hook.slice(0, REFUSED_URL_CHARS)}…`);
    expect(stored.url.length).toBeLessThanOrEqual(REFUSED_URL_CHARS + 1);
  });

  it("a throttled client's repeated 429s are one row counting them, across writes; another client, or a 401, gets its own row", async () => {
    const throttled = (n: number, client = "198.51.100.7") =>
      refusal(n, { id: `slow-${n}`, client, status: 429, code: "too_many_requests", receivedAt: T0 + n * 1000 });
    for (let i = 1; i <= 300; i++) ledger.record(throttled(i));
    await flush();
    for (let i = 301; i <= 500; i++) ledger.record(throttled(i));
    ledger.record(throttled(501, "198.51.100.8"));
    ledger.record(refusal(502, { client: "198.51.100.7" }));
    await flush();
    const rows = ledger.list({ limit: 10 })!;
    expect(rows.map((d) => [d.id, d.status, d.count])).toEqual([
      ["bad-502", 401, undefined],
      ["slow-501", 429, undefined],
      ["slow-1", 429, 500],
    ]);
    expect(rows[2]!.lastAt).toBe(new Date(T0 + 500 * 1000).toISOString());
    expect(rows[2]!.receivedAt).toBe(new Date(T0 + 1000).toISOString());
  });

  it("a 429 after a pause longer than FOLD_WINDOW_MS starts a new counted row", async () => {
    const at = (n: number, t: number) => refusal(n, { id: `slow-${n}`, client: "198.51.100.9", status: 429, receivedAt: t });
    ledger.record(at(1, T0));
    ledger.record(at(2, T0 + 1000));
    ledger.record(at(3, T0 + 1000 + FOLD_WINDOW_MS + 1));
    await flush();
    expect(ledger.list({ limit: 10 })!.map((d) => [d.id, d.count])).toEqual([
      ["slow-3", undefined],
      ["slow-1", 2],
    ]);
  });

  it("a counted row pruned meanwhile is not counted into: the next 429 starts a new row", async () => {
    const slow = (n: number) => refusal(n, { id: `slow-${n}`, client: "198.51.100.10", status: 429, receivedAt: now + n });
    ledger.record(slow(1));
    await flush();
    database.db.exec("DELETE FROM deliveries");
    ledger.prune();
    ledger.record(slow(2));
    await flush();
    expect(ledger.list({ limit: 10 })!.map((d) => [d.id, d.count])).toEqual([["slow-2", undefined]]);
  });
});
