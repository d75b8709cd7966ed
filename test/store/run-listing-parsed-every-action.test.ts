/**
 * Regression (issue 35, finding 3): `GET {path}/runs?limit=500` (and the dashboard's
 * overview, and the CLI's `runs list`, which read the same RunLister) read `SELECT *` and
 * parsed every run's action JSON, though a listing shows only ids, names, times and the
 * summary: 500 runs of 250 KB held the event loop 1.1 s. Now a listing reads the columns it
 * shows (migration 11 keeps the name and session key beside the action) and parses no JSON.
 * Asserted by structure (the columns read, JSON.parse not called), never by a time.
 */
import path from "node:path";
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { createRunLister, LISTING_COLUMNS } from "../../src/store/run-list";
import { MIGRATIONS, migrate } from "../../src/store/migrations";
import { openSqlite } from "../../src/store/sqlite-driver";
import { agentAction, actionSource, recordingLogger, runRecord, tempDir } from "../helpers/temp-dir";

describe("a run listing", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  beforeEach(() => {
    tmp = tempDir("iw-run-list-");
    log = recordingLogger("store");
  });
  afterEach(() => {
    database?.close();
    log.close();
    tmp.remove();
  });

  it("reads only the columns it shows and parses no run's action (was: SELECT * and JSON.parse of every action)", () => {
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const store = createSqliteRunStore(database);
    const big = "x".repeat(250_000);
    for (let i = 1; i <= 5; i++)
      store.insert(
        runRecord({
          id: `run-${i}`,
          seq: store.nextSeq(),
          status: i === 5 ? "queued" : "succeeded",
          action: agentAction({ message: big, name: `Hook ${i}`, sessionKey: `hook:s-${i}` }),
          startedAt: "2030-01-01T00:00:01.000Z",
          finishedAt: i === 5 ? undefined : "2030-01-01T00:00:02.000Z",
          summary: i === 5 ? undefined : `Hook ${i}: done`,
        }),
      );
    expect(LISTING_COLUMNS.split(", ").some((c) => c === "action" || c === "source" || c === "*")).toBe(false);
    const lister = createRunLister(database);
    const parse = jest.spyOn(JSON, "parse");
    try {
      const listed = lister.list({ limit: 500 });
      expect(parse).not.toHaveBeenCalled();
      expect(listed.map((r) => [r.id, r.name, r.sessionKey])).toEqual([5, 4, 3, 2, 1].map((i) => [`run-${i}`, `Hook ${i}`, `hook:s-${i}`]));
      // The same view a whole run gives (toRunView): a queued run shows no startedAt.
      for (const r of listed) expect(r).toEqual(lister.get(r.id));
      expect(listed[0]).not.toHaveProperty("startedAt");
      expect(lister.list({ limit: 2, status: "succeeded" }).map((r) => r.id)).toEqual(["run-4", "run-3"]);
    } finally {
      parse.mockRestore();
    }
  });

  it("a schema-10 database's runs get their name and session key from their action (migration 11); a damaged run stays out of the listing", () => {
    const raw = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"));
    migrate(raw, MIGRATIONS.slice(0, 10));
    const insert = raw.prepare<unknown[]>(
      "INSERT INTO runs (id, seq, status, action, source, created_at) VALUES (?, ?, 'queued', ?, ?, '2030-01-01T00:00:00.000Z')",
    );
    insert.run("old-1", 1, JSON.stringify(agentAction({ name: "CRM", sessionKey: "hook:crm" })), JSON.stringify(actionSource()));
    insert.run("broken", 2, "{not json", JSON.stringify(actionSource()));
    insert.run("nameless", 3, JSON.stringify({ ...agentAction(), name: 7 }), JSON.stringify(actionSource()));
    raw.close();
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    expect(database.db.prepare("SELECT id, name, session_key FROM runs ORDER BY seq").all()).toEqual([
      { id: "old-1", name: "CRM", session_key: "hook:crm" },
      { id: "broken", name: null, session_key: null },
      { id: "nameless", name: null, session_key: agentAction().sessionKey },
    ]);
    expect(
      createRunLister(database)
        .list({ limit: 10 })
        .map((r) => [r.id, r.name, r.sessionKey]),
    ).toEqual([["old-1", "CRM", "hook:crm"]]);
  });
});
