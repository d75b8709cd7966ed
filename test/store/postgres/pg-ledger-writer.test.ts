/**
 * The ledger's write side over Postgres (src/store/postgres/pg-ledger-writer.ts): a
 * request's ledger row is written on a later turn than its run, after the answer, so
 * Postgres stopped in between used to leave the run without its ledger row (a run
 * answered 2xx that no delivery names). The row is now kept and written once Postgres
 * is back, once, within a bound that drops the rows naming no run first.
 */
import { describePostgres } from "../../helpers/postgres";
import { until } from "../../helpers/until";
import { pgFixture, runInsert } from "./pg-fixture";
import { createPgLedgerWriter } from "../../../src/store/postgres/pg-ledger-writer";
import type { LedgerEntry } from "../../../src/store/ledger-rows";

let n = 0;
function entry(runIds: string[], status = 202): LedgerEntry {
  return {
    id: `d-${process.pid}-${++n}`,
    receivedAt: Date.now(),
    method: "POST",
    url: "/hooks/agent",
    hook: "agent",
    client: "c",
    status,
    latencyMs: 1,
    runIds,
    headers: {},
    bodyStored: false,
  } as LedgerEntry;
}

describePostgres("Postgres ledger writer: Postgres stopped between a run's commit and its ledger row", () => {
  const fx = pgFixture();

  it("a run committed just before Postgres stopped gets its ledger row once Postgres is back (no run without its delivery), written once", async () => {
    const store = await fx.open(undefined, { connectTimeoutMs: 1000 });
    const db = store.url.split("/").pop();
    const writer = createPgLedgerWriter({ accept: store.accept, logger: fx.logs.logger, retryMs: 100 });
    const run = runInsert();
    await store.accept.stage({ runs: [run] });
    await fx.cluster().stop("fast");
    const row = entry([run.id]);
    writer.record(row);
    await until(() => writer.pending() === 1, "the row kept while Postgres is down");
    await fx.cluster().start();
    await until(() => writer.pending() === 0, "the row written again", { timeoutMs: 15_000 });
    await until(
      async () => (await fx.cluster().psql(`SELECT count(*) FROM inbound_webhooks.deliveries WHERE run_id = '${run.id}'`, db)).trim() === "1",
      "the run's ledger row",
    );
    // Staged once more (a statement in doubt that did commit): stored once, no failure.
    await store.accept.stage({ delivery: row });
    expect((await fx.cluster().psql("SELECT count(*) FROM inbound_webhooks.deliveries", db)).trim()).toBe("1");
    expect(fx.logs.lines.some((l) => l.level === "warn" && /ledger rows not written: Postgres is unavailable/.test(l.message))).toBe(true);
    await until(
      () => fx.logs.lines.some((l) => l.level === "info" && /kept while Postgres was unavailable are written/.test(l.message)),
      "the outage's end logged",
    );
    expect(fx.logs.lines.some((l) => /delivery not recorded/.test(l.message))).toBe(false);
    await writer.stop();
  });

  it("past its bound, the rows naming no run are dropped first: every run keeps its ledger row", async () => {
    const store = await fx.open(undefined, { connectTimeoutMs: 1000 });
    const db = store.url.split("/").pop();
    const writer = createPgLedgerWriter({ accept: store.accept, logger: fx.logs.logger, retryMs: 100, maxPending: 2 });
    const a = runInsert();
    const b = runInsert();
    await store.accept.stage({ runs: [a, b] });
    await fx.cluster().stop("fast");
    writer.record(entry([], 503));
    await until(() => writer.pending() === 1, "the 503's row kept");
    writer.record(entry([a.id]));
    writer.record(entry([b.id]));
    writer.record(entry([], 503));
    await until(() => writer.pending() === 2, "the two rows naming runs kept");
    await fx.cluster().start();
    await until(async () => (await fx.cluster().psql("SELECT count(*) FROM inbound_webhooks.deliveries", db)).trim() === "2", "the rows written again", {
      timeoutMs: 15_000,
    });
    expect((await fx.cluster().psql("SELECT run_id FROM inbound_webhooks.deliveries ORDER BY run_id", db)).trim().split("\n")).toEqual([a.id, b.id].sort());
    await writer.stop();
  });
});
