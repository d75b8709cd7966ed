/**
 * Regression (issue 35, finding 1): a quoted search word that the index's tokenizer split
 * into many tokens (`a.a.a…`, 199 characters → 100 tokens) was an FTS5 phrase, matched
 * token by token at every position of every row holding them, before LIMIT: 400 bodies of
 * 64 KiB of `a a a…` held the event loop 4.3 s, linearly more with more rows. Now the
 * index keeps row ids only (migration 10, `detail=none`), a search is at most
 * MAX_SEARCH_TERMS different terms, each matched whole (no phrase, no prefix), and a
 * search of more terms is a 400 naming `search`. Asserted by structure (the index holds
 * one entry per term and row, the MATCH text, the cap), never by a time.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createLedgerStore, type LedgerEntry, type LedgerStore } from "../../src/store/ledger-store";
import { ftsQuery } from "../../src/store/ledger-search";
import { parseDeliveryQuery } from "../../src/intake/ledger/ledger-query";
import { MAX_SEARCH_TERMS, searchTerms } from "../../src/core/inspection";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

const T0 = Date.parse("2026-03-01T12:00:00Z");
/** 64 KiB of `a a a …`: 32,768 positions of one term. */
const BODY = Buffer.from("a ".repeat(32_768));
const PHRASE = Array.from({ length: 100 }, () => "a").join(".");

function entry(n: number, body: Buffer): LedgerEntry {
  return {
    id: `d-${n}`,
    receivedAt: T0 + n,
    method: "POST",
    url: "/hooks/wake",
    hook: "wake",
    client: "127.0.0.1",
    status: 400,
    code: "invalid_json",
    latencyMs: 1,
    runIds: [],
    headers: {},
    body,
  };
}

describe("a search phrase of 100 tokens", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  let ledger: LedgerStore;

  beforeAll(() => {
    tmp = tempDir("iw-search-phrase-");
    log = recordingLogger("ledger");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    ledger = createLedgerStore(database, { logger: log.logger, storeBodies: true, retentionDays: 7, maxEntries: 10_000, clock: () => T0 });
    for (let n = 1; n <= 20; n++) ledger.record(entry(n, BODY));
    ledger.record(entry(21, Buffer.from('{"word":"b"}')));
    ledger.flush();
    // Indexed whole (1.3 MiB of bodies: more than a search's own catch-up indexes), as the background does within a few turns.
    ledger.index();
  });
  afterAll(() => {
    ledger.close();
    database.close();
    log.close();
    tmp.remove();
  });

  it("is one term, matched whole by the row ids it occurs in: no phrase, no prefix", () => {
    expect(PHRASE.length).toBe(199);
    expect(searchTerms(PHRASE)).toEqual(["a"]);
    expect(ftsQuery(PHRASE)).toBe('"a"');
    expect(ftsQuery('pull_request "Main" main')).toBe('"pull" "request" "main"');
    expect(ledger.list({ limit: 5, search: PHRASE })!.map((d) => d.id)).toEqual(["d-20", "d-19", "d-18", "d-17", "d-16"]);
  });

  it("walks one index entry per row a term occurs in, not one per position (the index keeps no positions)", () => {
    const { db } = database;
    expect(db.prepare<[], { sql: string }>("SELECT sql FROM sqlite_master WHERE name = 'deliveries_fts'").get()!.sql).toContain("detail=none");
    db.exec("CREATE VIRTUAL TABLE temp.search_terms USING fts5vocab(main, deliveries_fts, row)");
    try {
      // 20 bodies of 32,768 positions of "a": 20 rows, and no count of positions (none is kept: with positions it was 655,360).
      expect(db.prepare("SELECT doc, cnt FROM temp.search_terms WHERE term = 'a'").get()).toEqual({ doc: 20, cnt: null });
    } finally {
      db.exec("DROP TABLE temp.search_terms");
    }
    // The index's bytes are a few per row, not 32 KiB of positions per body.
    const indexBytes = db.prepare<[], { n: number }>("SELECT SUM(length(block)) AS n FROM deliveries_fts_data").get()!.n;
    expect(indexBytes).toBeLessThan(21 * 256);
  });

  it(`of more than ${MAX_SEARCH_TERMS} different terms is a 400 naming search and the rule`, () => {
    const many = Array.from({ length: MAX_SEARCH_TERMS + 1 }, (_, i) => `t${i}`).join(".");
    expect(parseDeliveryQuery({ search: many.slice(0, 200) })).toMatchObject({ ok: false });
    const r = parseDeliveryQuery({ search: many });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.toBody()).toEqual({
      ok: false,
      code: "invalid_request",
      error: `Query parameter search has ${MAX_SEARCH_TERMS + 1} different terms and may have at most ${MAX_SEARCH_TERMS} (a term is a run of letters and digits: a.b.c is 3).`,
      details: [{ field: "search", message: expect.stringContaining("Query parameter search has 17 different terms") }],
    });
    expect(r.error.status).toBe(400);
    expect(parseDeliveryQuery({ search: Array.from({ length: MAX_SEARCH_TERMS }, (_, i) => `t${i}`).join(".") }).ok).toBe(true);
  });
});
