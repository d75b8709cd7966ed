/**
 * Regression (issue 35, finding 2): the age prune was one statement over every row past
 * retention, and taking each row out of the search index re-tokenized up to 64 KiB of its
 * body: 2,000 rows held `/healthz` 4.0–4.2 s, the default 10,000 about 20 s, all in the turn
 * of the write that found them old. Now a prune goes in steps of bounded cost — at most
 * PRUNE_STEP_BYTES of bodies (4 of 64 KiB) and PRUNE_STEP_ROWS rows — one per turn of the
 * event loop, none in the write itself (it shares its commit with the runs accepted in that
 * turn). Asserted by structure (the rows each turn deletes, the bytes of their bodies),
 * never by a time.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createLedgerStore, type LedgerEntry, type LedgerStore } from "../../src/store/ledger-store";
import { PRUNE_ROW_BYTES, PRUNE_STEP_BYTES, PRUNE_STEP_ROWS } from "../../src/store/ledger-prune";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

const DAY = 86_400_000;
const T0 = Date.parse("2026-03-01T12:00:00Z");
const BIG = Buffer.from("a ".repeat(32_768));

function entry(n: number, body: Buffer, receivedAt = T0 + n): LedgerEntry {
  return {
    id: `d-${n}`,
    receivedAt,
    method: "POST",
    url: "/hooks/wake",
    hook: "wake",
    client: "::1",
    status: 400,
    latencyMs: 1,
    runIds: [],
    headers: {},
    body,
  };
}

describe("pruning 2,000 rows past retention", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  let ledger: LedgerStore;
  let now = T0;
  beforeEach(() => {
    tmp = tempDir("iw-age-prune-");
    log = recordingLogger("ledger");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    now = T0;
  });
  afterEach(() => {
    ledger.close();
    database.close();
    log.close();
    tmp.remove();
  });
  const rows = (): number => database.db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries").get()!.n;
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  /** Stores `n` rows with `body` (in writes of 100), then, 8 days later, one more, and returns the rows left after each turn until only it is left. */
  async function agedAndPruned(n: number, body: (i: number) => Buffer): Promise<number[]> {
    ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries: 10_000, clock: () => now });
    for (let i = 1; i <= n; i++) {
      ledger.record(entry(i, body(i)));
      if (i % 100 === 0) ledger.flush();
    }
    ledger.flush();
    expect(rows()).toBe(n);
    now = T0 + 8 * DAY;
    ledger.record(entry(n + 1, Buffer.from("{}"), now));
    ledger.flush();
    const left = [rows()];
    while (left.at(-1)! > 1 && left.length < n + 10) {
      await turn();
      left.push(rows());
    }
    return left;
  }

  it("of 64 KiB each, deletes none in the write and at most 4 of them (PRUNE_STEP_BYTES of bodies) in each later turn, until all are gone", async () => {
    const left = await agedAndPruned(200, () => BIG);
    const perTurn = left.slice(1).map((r, i) => left[i]! - r);
    // The write itself deleted nothing (was: all 200 in the write's turn; then one step of 16 in the write).
    expect(left[0]).toBe(200 + 1);
    expect(Math.ceil(PRUNE_STEP_BYTES / (BIG.length + PRUNE_ROW_BYTES))).toBe(4);
    expect(Math.max(...perTurn)).toBeLessThanOrEqual(Math.ceil(PRUNE_STEP_BYTES / (BIG.length + PRUNE_ROW_BYTES)));
    expect(Math.max(...perTurn)).toBeGreaterThan(0);
    expect(left.at(-1)).toBe(1);
  });

  it("of small bodies, deletes at most PRUNE_STEP_ROWS per turn (2,000 rows: several turns, not one statement)", async () => {
    const left = await agedAndPruned(2_000, (i) => Buffer.from(`{"n":${i}}`));
    expect(left[0]).toBe(2_001);
    const perTurn = left.slice(1).map((r, i) => left[i]! - r);
    expect(Math.max(...perTurn)).toBe(PRUNE_STEP_ROWS);
    expect(perTurn.filter((d) => d > 0).length).toBe(Math.ceil(2_000 / PRUNE_STEP_ROWS));
    expect(left.at(-1)).toBe(1);
  });
});
