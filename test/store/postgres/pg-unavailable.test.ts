import { describePostgres } from "../../helpers/postgres";
import { until } from "../../helpers/until";
import { pgFixture, runInsert } from "./pg-fixture";
import { storageFaultCode, storageUnavailable } from "../../../src/core/storage-fault";

describePostgres("Postgres store: Postgres stopped and started again", () => {
  const fx = pgFixture();

  it("fails writes as storage faults (503 storage_unavailable, Retry-After) while Postgres is down, keeps nothing half-written, and recovers without a restart", async () => {
    const store = await fx.open(undefined, { connectTimeoutMs: 1000 });
    const heard: string[] = [];
    const listener = store.listen((why) => heard.push(why), 200);
    await until(() => listener.listening, "the LISTEN connection");
    const before = runInsert();
    await store.accept.stage({ runs: [before] });

    await fx.cluster().stop("fast");
    const during = runInsert();
    const failure = await store.accept.stage({ runs: [during] }).catch((e: unknown) => e);
    const code = storageFaultCode(failure);
    expect(code).toMatch(/^PG_(ECONNREFUSED|57P01|CONNECTION_TERMINATED)$/);
    expect(storageUnavailable(failure)).toMatchObject({ status: 503, code: "storage_unavailable", headers: { "Retry-After": "30" } });
    await expect(store.runs.get(before.id)).rejects.toMatchObject({ code: expect.stringMatching(/^PG_/) });
    await until(() => !listener.listening, "the listener to notice");
    // The polling fallback goes on while nobody listens.
    const polls = heard.length;
    await until(() => heard.length > polls, "a poll while Postgres is down");

    await fx.cluster().start();
    await until(() => listener.listening, "the LISTEN connection again", { timeoutMs: 15_000 });
    const after = runInsert();
    expect(await store.accept.stage({ runs: [after] })).toMatchObject({ kind: "stored" });
    expect((await store.runs.listByStatus(["queued"])).map((r) => r.id)).toEqual([before.id, after.id]);
    expect(fx.logs.lines.some((l) => l.level === "warn" && /LISTEN connection was lost/.test(l.message))).toBe(true);
  });

  it("a Postgres killed mid-write (immediate stop) leaves each request stored whole or not at all", async () => {
    const store = await fx.open(undefined, { connectTimeoutMs: 1000 });
    const outcomes: Array<{ id: string; ok: boolean }> = [];
    let stop = false;
    const writer = (async () => {
      while (!stop) {
        const run = runInsert();
        const ok = await store.accept.stage({ runs: [run], delivery: deliveryOf(run.id) }).then(
          () => true,
          () => false,
        );
        outcomes.push({ id: run.id, ok });
      }
    })();
    await until(() => outcomes.length > 50, "some writes");
    await fx.cluster().stop("immediate");
    await until(() => outcomes.slice(-3).every((o) => !o.ok) && outcomes.length > 3, "writes failing");
    await fx.cluster().start();
    await until(() => outcomes.slice(-1)[0]?.ok === true, "writes succeeding again", { timeoutMs: 15_000 });
    stop = true;
    await writer;
    const db = store.url.split("/").pop();
    const runs = new Set((await fx.cluster().psql("SELECT id FROM inbound_webhooks.runs", db)).trim().split("\n"));
    const deliveries = new Set((await fx.cluster().psql("SELECT run_id FROM inbound_webhooks.deliveries", db)).trim().split("\n"));
    // Every answered write is there; a run never lacks its ledger row nor the other way round.
    for (const o of outcomes) if (o.ok) expect(runs.has(o.id)).toBe(true);
    expect([...runs].sort()).toEqual([...deliveries].sort());
  });
});

function deliveryOf(runId: string) {
  return {
    id: `d-${runId}`,
    receivedAt: Date.now(),
    method: "POST",
    url: "/hooks/agent",
    hook: "agent",
    client: "c",
    status: 202,
    latencyMs: 1,
    runIds: [runId],
    headers: {},
  };
}
