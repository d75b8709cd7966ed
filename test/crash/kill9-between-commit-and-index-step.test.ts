/**
 * Crash suite (SPEC §7, §14; issue 36 item 3): the ledger's search index is written after
 * the accept turn, in steps of its own (src/store/ledger-index.ts), so there is a moment
 * when a delivery's row is committed and its index entry is not. The real gateway is
 * killed with SIGKILL in that moment — the test watches the database file and kills it as
 * soon as committed rows stand above the index's watermark — then started again on the
 * same state. Afterwards:
 *   - every row committed before the kill is still there, and a search finds each of them
 *     (the rows above the watermark are indexed by a later step, after the start);
 *   - the search index is consistent (FTS5's integrity-check over the table);
 *   - nothing is indexed twice (the index holds as many rows as the table).
 * Runs on both SQLite drivers (.ci/run's node:sqlite pass runs test/crash again).
 * Requires the built dist (`npm test` builds it first).
 */
import fs from "node:fs";
import { until } from "../helpers/until";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { openSqlite } from "../../src/store/sqlite-driver";
import { CRASH_TOKEN, pluginDatabaseFile, postJson, queryPluginDb } from "./crash-support";

jest.setTimeout(240_000);

const CONFIG = {
  hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false } },
  agents: { runner: { kind: "echo", delayMs: 0 }, defaults: { heartbeat: { every: "off" } } },
  session: { main: { maxPending: 100_000 } },
};

/** Committed rows above the index's watermark (its highest rowid), and rows in all. */
function unindexed(dir: string): { above: number; rows: number } {
  const [r] = queryPluginDb<{ above: number; rows: number }>(
    dir,
    "SELECT (SELECT COUNT(*) FROM deliveries WHERE seq > COALESCE((SELECT MAX(rowid) FROM deliveries_fts), 0)) AS above, (SELECT COUNT(*) FROM deliveries) AS rows",
  );
  return r!;
}

/** The SQLite varint at the start of `bytes` (big-endian groups of 7 bits, the 9th byte whole). */
function leadingVarint(bytes: Uint8Array): number {
  let v = 0;
  for (let i = 0; i < 9; i++) {
    const b = bytes[i]!;
    if (i === 8) return v * 256 + b;
    v = v * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) return v;
  }
  return v;
}

async function search(gw: GatewayProcess, word: string): Promise<string[]> {
  const res = await fetch(`${gw.baseUrl}/hooks/deliveries?limit=500&search=${encodeURIComponent(word)}`, {
    headers: { authorization: `Bearer ${CRASH_TOKEN}` },
    signal: AbortSignal.timeout(15_000),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { deliveries: Array<{ id: string }> }).deliveries.map((d) => d.id);
}

describe("crash suite: kill -9 between a delivery's commit and its index step", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;

  beforeAll(() => {
    dir = makeGatewayDir("gw-crash-index-");
  });
  afterAll(async () => {
    await gw?.kill9();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("keeps every committed row and indexes the ones the kill left above the watermark after the start", async () => {
    gw = await startGateway({ dir, config: CONFIG, startTimeoutMs: 60_000 });
    const state = gw.stateDir;
    expect((await postJson(gw, "wake", { text: "haystack first", mode: "next-heartbeat" })).status).toBe(200);
    await until(() => fs.existsSync(pluginDatabaseFile(state)) && unindexed(state).rows === 1 && unindexed(state).above === 0, "the first row, indexed", {
      timeoutMs: 30_000,
      intervalMs: 20,
    });
    // Bursts of wakes, the file watched meanwhile; at the first committed rows above the watermark, the kill. The
    // index may still reach them between the look and the kill: then the gateway starts again and the next bursts
    // try once more (at most 5 kills, 24 bursts in all: 481 rows, one search page of 500 lists them all).
    let sent = 0;
    let kills = 0;
    let afterKill: { above: number; rows: number } | undefined;
    for (let burst = 0; burst < 24 && !afterKill && kills < 5; burst++) {
      const answers = Array.from({ length: 20 }, () => {
        const i = sent++;
        return postJson(gw!, "wake", { text: `haystack needle${i}`, mode: "next-heartbeat" }).catch(() => undefined);
      });
      // Watch the file while the burst is answered, committed and (INDEX_AFTER_MS, 50 ms, later) indexed.
      const watchUntil = Date.now() + 150;
      let killed = false;
      while (!killed && Date.now() < watchUntil) {
        if (unindexed(state).above > 0) {
          await gw!.kill9();
          killed = true;
          kills++;
        } else await new Promise((r) => setImmediate(r));
      }
      await Promise.all(answers);
      if (!killed) continue;
      const now = unindexed(state);
      if (now.above > 0) afterKill = now;
      else gw = await startGateway({ dir, config: CONFIG, startTimeoutMs: 60_000 });
    }
    // The kill landed in the moment: the file, after it, holds committed rows above the watermark.
    expect(afterKill).toBeDefined();
    gw = undefined;
    process.stderr.write(
      `\nkilled with ${afterKill!.above} of ${afterKill!.rows} committed rows above the index's watermark (${sent} wakes sent, ${kills} kill(s))\n`,
    );

    gw = await startGateway({ dir, config: CONFIG, startTimeoutMs: 60_000 });
    await until(() => unindexed(state).above === 0, "the rows above the watermark to be indexed after the start", { timeoutMs: 30_000, intervalMs: 50 });
    const ids = queryPluginDb<{ id: string; seq: number }>(state, "SELECT id, seq FROM deliveries ORDER BY seq");
    expect(ids.length).toBe(afterKill!.rows);
    // Every row is found: all by the common word, the last ones above the old watermark each by its own.
    expect((await search(gw, "haystack")).sort()).toEqual(ids.map((r) => r.id).sort());
    const bodies = queryPluginDb<{ id: string; body: Buffer | Uint8Array }>(
      state,
      "SELECT id, body FROM deliveries ORDER BY seq DESC LIMIT ?",
      afterKill!.above,
    );
    for (const { id, body } of bodies) {
      const needle = /needle\d+/.exec(Buffer.from(body).toString("utf8"))![0];
      expect(await search(gw, needle)).toEqual([id]);
    }
    await gw.kill9();
    gw = undefined;

    // The index is consistent and holds each row once.
    const db = openSqlite(pluginDatabaseFile(state));
    try {
      db.prepare("INSERT INTO deliveries_fts (deliveries_fts, rank) VALUES ('integrity-check', 0)").run();
      const rows = db.prepare("SELECT COUNT(*) AS n FROM deliveries").get() as { n: number };
      // FTS5's own count of the rows it indexed (its averages record, id 1 of the _data table: a varint first): a row
      // indexed twice would count twice there, while its docsize row would only be replaced.
      const averages = db.prepare("SELECT block FROM deliveries_fts_data WHERE id = 1").get() as { block: Uint8Array };
      expect(leadingVarint(averages.block)).toBe(rows.n);
    } finally {
      db.close();
    }
  });
});
