/**
 * Regression (issue 35, finding 3, the Postgres store): `GET {path}/runs` over Postgres read
 * `SELECT *` and parsed every run's action and source JSON, though a listing shows only ids,
 * names, times and the summary — what the SQLite store's listing stopped doing (migration 11).
 * Now it reads the same LISTING_COLUMNS (Postgres migration 2 keeps the action's name beside
 * it, as the session key already was) and parses no JSON. Asserted by structure (the columns
 * read, JSON.parse not called), never by a time.
 */
import { describePostgres } from "../../helpers/postgres";
import { pgFixture, runInsert } from "./pg-fixture";
import { agentAction, actionSource } from "../../helpers/temp-dir";
import { openPgPool } from "../../../src/store/postgres/pg-pool";
import { migratePostgres } from "../../../src/store/postgres/pg-migrate";
import { PG_MIGRATIONS, PG_SCHEMA as S } from "../../../src/store/postgres/pg-schema";
import { LISTING_COLUMNS } from "../../../src/store/run-list";
import { toRunView } from "../../../src/core/runs";

describePostgres("Postgres store: a run listing", () => {
  const fx = pgFixture();

  it("reads only the columns it shows and parses no run's action (was: SELECT * and JSON.parse of every action and source)", async () => {
    const store = await fx.open();
    const big = "x".repeat(250_000);
    const runs = [1, 2, 3, 4, 5].map((i) => runInsert({ message: big, name: `Hook ${i}`, sessionKey: `hook:s-${i}` }));
    for (const run of runs) await store.accept.stage({ runs: [run] });
    const [claimed] = await store.runs.claim({ owner: "c1", leaseMs: 30_000, limit: 1 });
    expect(await store.runs.finish(claimed!.id, "c1", { status: "succeeded", finishedAt: "2030-01-01T00:00:02.000Z", summary: "Hook 1: done" })).toBe(true);

    const queries: string[] = [];
    const query = store.pool.query.bind(store.pool);
    const spied = jest.spyOn(store.pool, "query").mockImplementation((text: string, values?: unknown[]) => {
      queries.push(text);
      return query(text, values);
    });
    const parse = jest.spyOn(JSON, "parse");
    let listed;
    try {
      listed = await store.runs.list({ limit: 500 });
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
      spied.mockRestore();
    }
    expect(queries).toEqual([`SELECT ${LISTING_COLUMNS} FROM ${S}.runs ORDER BY seq DESC LIMIT $1`]);
    expect(listed.map((r) => [r.id, r.name, r.sessionKey])).toEqual([5, 4, 3, 2, 1].map((i) => [runs[i - 1]!.id, `Hook ${i}`, `hook:s-${i}`]));
    // The same view a whole run gives (toRunView): the finished run's times and summary, a queued one without startedAt.
    for (const r of listed) expect(r).toEqual(toRunView((await store.runs.get(r.id))!));
    // Its startedAt the claim's, stamped by the database (pg-runs.ts), as the listing reads it back.
    expect(claimed!.startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(listed.at(-1)).toMatchObject({ status: "succeeded", startedAt: claimed!.startedAt, summary: "Hook 1: done" });
    expect(listed[0]).not.toHaveProperty("startedAt");
    expect((await store.runs.list({ limit: 2, status: "queued" })).map((r) => r.id)).toEqual([runs[4]!.id, runs[3]!.id]);
  });

  it("a schema-1 database's runs get their name from their action (migration 2); one without is read in full, a damaged one stays out", async () => {
    const url = await fx.cluster().createDatabase();
    const pool = openPgPool({ url, logger: fx.logs.logger });
    try {
      await migratePostgres(pool, PG_MIGRATIONS.slice(0, 1));
      const insert = (id: string, action: string) =>
        pool.query(
          `INSERT INTO ${S}.runs (id, session_key, status, action, source, created_at) VALUES ($1, $2, 'queued', $3, $4, '2030-01-01T00:00:00.000Z')`,
          [id, "hook:crm", action, JSON.stringify(actionSource())],
        );
      await insert("old-1", JSON.stringify(agentAction({ name: "CRM", sessionKey: "hook:crm" })));
      await insert("broken", "{not json");
      await insert("nameless", JSON.stringify({ ...agentAction(), name: 7 }));
    } finally {
      await pool.end();
    }
    const store = await fx.open(url);
    expect(store.schemaVersion).toBe(PG_MIGRATIONS.length);
    const { rows } = await store.pool.query(`SELECT id, name FROM ${S}.runs ORDER BY seq`);
    expect(rows).toEqual([
      { id: "old-1", name: "CRM" },
      { id: "broken", name: null },
      { id: "nameless", name: null },
    ]);
    expect((await store.runs.list({ limit: 10 })).map((r) => [r.id, r.name, r.sessionKey])).toEqual([["old-1", "CRM", "hook:crm"]]);
  });
});
