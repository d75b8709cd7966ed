/**
 * The consumer of a shared store (SPEC §16) against a real Postgres: runs claimed one at a
 * time per session key in arrival order, the lease renewed, a dead consumer's runs taken over
 * after the lease per §7's rule, a consumer whose lease was taken over records and reports
 * nothing, and wakes stored by a receiver handed to the main session.
 */
import { randomUUID } from "node:crypto";
import { describePostgres } from "../helpers/postgres";
import { until } from "../helpers/until";
import { createFakeHost, type FakeHost } from "../helpers/fake-host";
import { pgFixture, runInsert } from "../store/postgres/pg-fixture";
import { createRunConsumer, type RunConsumer } from "../../src/runs/run-consumer";
import { createRunExecutor } from "../../src/runs/executor";
import { createPluginEmitter } from "../../src/core/events";
import type { PostgresStore } from "../../src/store/postgres/pg-store";
import type { RunTurnRequest, RunTurnResult } from "../../src/host-contract/host-api";

describePostgres("the run consumer of a shared store", () => {
  const fx = pgFixture();
  const consumers: RunConsumer[] = [];
  afterEach(async () => {
    await Promise.all(consumers.splice(0).map((c) => c.stop(0)));
  });

  function consumer(store: PostgresStore, host: FakeHost, over: { owner?: string; leaseMs?: number; maxConcurrent?: number; retryInterrupted?: boolean } = {}) {
    const emitter = createPluginEmitter();
    const executor = createRunExecutor({ runtime: host.api.runtime, logger: fx.logs.logger, emitter });
    const c = createRunConsumer({
      runs: store.runs,
      wakes: store.wakes,
      executor,
      runtime: host.api.runtime,
      owner: over.owner ?? `c-${randomUUID()}`,
      leaseMs: over.leaseMs ?? 30_000,
      maxConcurrent: over.maxConcurrent ?? 4,
      retryInterrupted: over.retryInterrupted ?? false,
      logger: fx.logs.logger,
      emitter,
    });
    consumers.push(c);
    store.listen((why) => c.wake(why), 200);
    return c;
  }

  /** A runner that records, per session, how many turns run at once. */
  function tracking() {
    const active = new Map<string, number>();
    const order = new Map<string, string[]>();
    let overlaps = 0;
    const runTurn = async (req: RunTurnRequest): Promise<RunTurnResult> => {
      const n = (active.get(req.sessionKey) ?? 0) + 1;
      active.set(req.sessionKey, n);
      if (n > 1) overlaps++;
      order.set(req.sessionKey, [...(order.get(req.sessionKey) ?? []), req.runId!]);
      await new Promise((r) => setTimeout(r, 3));
      active.set(req.sessionKey, n - 1);
      return { status: "ok", reply: `done ${req.runId}` };
    };
    return { runTurn, order, overlaps: () => overlaps };
  }

  async function stage(store: PostgresStore, sessions: string[], n: number): Promise<Map<string, string[]>> {
    const bySession = new Map<string, string[]>(sessions.map((s) => [s, []]));
    const writes = [];
    for (let i = 0; i < n; i++)
      for (const s of sessions) {
        const run = runInsert({ sessionKey: s, wakeMode: "next-heartbeat" });
        bySession.get(s)!.push(run.id);
        writes.push(store.accept.stage({ runs: [run] }));
      }
    await Promise.all(writes);
    return bySession;
  }

  it("two consumers run every run once, one at a time per session key, in arrival order, and post each summary", async () => {
    const store = await fx.open();
    const t = tracking();
    const host = createFakeHost({ runTurn: t.runTurn });
    const order = await stage(store, ["hook:a", "hook:b", "hook:c"], 10);
    const other = await fx.open(store.url);
    await Promise.all([consumer(store, host, { maxConcurrent: 2 }).start(), consumer(other, host, { maxConcurrent: 2 }).start()]);
    await until(async () => (await store.runs.listByStatus(["succeeded"])).length === 30, "30 runs succeeded", { timeoutMs: 30_000 });
    expect(t.overlaps()).toBe(0);
    expect(t.order).toEqual(order);
    await until(() => host.systemEvents.length === 30, "30 summaries");
    await until(async () => (await store.runs.listByStatus(["succeeded"])).every((r) => !r.summaryPending), "the outbox flags cleared");
  });

  it("a run whose consumer died is reported interrupted once its lease expired", async () => {
    const store = await fx.open();
    const host = createFakeHost();
    const [id] = (await stage(store, ["hook:a"], 1)).get("hook:a")!;
    await store.runs.claim({ owner: "dead", leaseMs: 300, limit: 1 });
    await consumer(store, host, { leaseMs: 400 }).start();
    await until(async () => (await store.runs.get(id!))?.status === "interrupted", "the run interrupted", { timeoutMs: 10_000 });
    const run = (await store.runs.get(id!))!;
    expect(run.error).toMatch(/interrupted/i);
    await until(() => host.systemEvents.some((e) => e.meta?.runId === id), "its report on the main session");
    expect(host.systemEvents.find((e) => e.meta?.runId === id)!.text).toContain("(interrupted)");
    expect(host.turns).toEqual([]);
  });

  it("regression: a claim that committed while Postgres stopped, its answer lost, left the run leased to the living consumer, which reported it interrupted once the lease ran out; now a run leased to this consumer and never started here is queued again and runs once, its start not counted", async () => {
    const store = await fx.open();
    const host = createFakeHost();
    const [id] = (await stage(store, ["hook:a"], 1)).get("hook:a")!;
    // The claim as Postgres committed it, under the consumer's own name; the consumer never saw its answer.
    await store.runs.claim({ owner: "me", leaseMs: 300, limit: 1 });
    await new Promise((r) => setTimeout(r, 400));
    await consumer(store, host, { owner: "me", leaseMs: 400 }).start();
    await until(async () => (await store.runs.get(id!))?.status === "succeeded", "the run succeeded", { timeoutMs: 10_000 });
    expect((await store.runs.get(id!))!.attempts).toBe(1);
    expect(host.turns.map((t) => t.runId)).toEqual([id]);
    expect(fx.logs.lines.some((l) => l.message.startsWith("a run claimed while Postgres stopped was never started here") && l.meta?.runId === id)).toBe(true);
  });

  it("with retryInterrupted a dead consumer's run runs again, its start counted", async () => {
    const store = await fx.open();
    const host = createFakeHost();
    const [id] = (await stage(store, ["hook:a"], 1)).get("hook:a")!;
    await store.runs.claim({ owner: "dead", leaseMs: 300, limit: 1 });
    await consumer(store, host, { leaseMs: 400, retryInterrupted: true }).start();
    await until(async () => (await store.runs.get(id!))?.status === "succeeded", "the run run again", { timeoutMs: 10_000 });
    expect((await store.runs.get(id!))!.attempts).toBe(2);
    expect(host.turns.map((t) => t.runId)).toEqual([id]);
  });

  it("a consumer whose lease was taken over records and reports nothing of the run", async () => {
    const store = await fx.open();
    let release!: () => void;
    const slow = createFakeHost({
      runTurn: () => new Promise<RunTurnResult>((r) => (release = () => r({ status: "ok", reply: "late" }))),
    });
    const [id] = (await stage(store, ["hook:a"], 1)).get("hook:a")!;
    await consumer(store, slow, { owner: "slow", leaseMs: 60_000 }).start();
    await until(() => slow.turns.length === 1, "the slow turn");
    // As if its renewals had stopped reaching Postgres: the lease runs out and another consumer takes the run over.
    await fx.cluster().psql(`UPDATE inbound_webhooks.runs SET lease_until = now() - interval '1 second'`, store.url.split("/").pop());
    const taken = await store.runs.reclaimExpired({ owner: "other", leaseMs: 60_000, limit: 10 });
    expect(taken.map((t) => t.run.id)).toEqual([id]);
    release();
    await until(() => fx.logs.lines.some((l) => /after its lease was taken over/.test(l.message)), "the lost lease noticed");
    expect(slow.systemEvents).toEqual([]);
    expect((await store.runs.get(id!))!.status).toBe("running");
  });

  it("hands the wakes receivers stored to the main session, with a heartbeat for mode now, and deletes them", async () => {
    const store = await fx.open();
    const host = createFakeHost();
    await consumer(store, host).start();
    const ids = [randomUUID(), randomUUID()];
    await store.accept.stage({
      wakes: [{ id: ids[0]!, event: { text: "first", mode: "now", reason: "hook:wake", meta: { kind: "wake" } }, createdAt: Date.now() }],
    });
    await store.accept.stage({ wakes: [{ id: ids[1]!, event: { text: "second", mode: "next-heartbeat" }, createdAt: Date.now() }] });
    await until(() => host.systemEvents.length === 2, "two wakes on the main session");
    expect(host.systemEvents.map((e) => [e.sessionKey, e.text, e.meta?.dedupeKey])).toEqual([
      ["main", "first", `wake:${ids[0]}`],
      ["main", "second", `wake:${ids[1]}`],
    ]);
    expect(host.heartbeats).toEqual([{ reason: "hook:wake" }]);
    await until(async () => (await store.wakes.pending()) === 0, "the wakes deleted");
  });

  it("an outcome Postgres could not take (stopped while the turn ran) is recorded once it is back: succeeded, not interrupted, its summary posted once, no restart", async () => {
    const store = await fx.open(undefined, { connectTimeoutMs: 1000 });
    let release!: () => void;
    const slow = createFakeHost({
      runTurn: () => new Promise<RunTurnResult>((r) => (release = () => r({ status: "ok", reply: "done while Postgres was down" }))),
    });
    const [id] = (await stage(store, ["hook:a"], 1)).get("hook:a")!;
    await consumer(store, slow, { leaseMs: 600 }).start();
    await until(() => slow.turns.length === 1, "the turn running");
    await fx.cluster().stop("fast");
    release();
    await until(
      () => fx.logs.lines.some((l) => /recording the run outcome failed: the store is unavailable/.test(l.message)),
      "the outcome waiting for the store",
    );
    // Down for longer than the lease: the run's lease has expired when Postgres is back (setup, not an assertion).
    await new Promise((r) => setTimeout(r, 1000));
    await fx.cluster().start();
    await until(async () => (await store.runs.get(id!).catch(() => undefined))?.status === "succeeded", "the run succeeded", { timeoutMs: 15_000 });
    await until(async () => !(await store.runs.get(id!))?.summaryPending, "its summary posted and its flag cleared");
    // Posted once, as succeeded: the lease that expired meanwhile was not taken for a dead consumer's.
    expect(slow.systemEvents.filter((e) => e.meta?.runId === id).map((e) => e.text.includes("(interrupted)"))).toEqual([false]);
    expect(fx.logs.lines.some((l) => /reported interrupted/.test(l.message) && l.meta?.runId === id)).toBe(false);
  });
});
