/**
 * A receiver's side of the dispatcher (SPEC §16) over a real Postgres: runs and a fan-out's
 * runs stored (all or none) for consumers elsewhere, wakes stored for the consumer's main
 * session instead of handed to this process's host, hooks.runs.maxQueued counted over the
 * whole store, and a store that is down answered 503 storage_unavailable.
 */
import { describePostgres } from "../helpers/postgres";
import { createFakeHost } from "../helpers/fake-host";
import { pgFixture } from "../store/postgres/pg-fixture";
import { agentAction, actionSource } from "../helpers/temp-dir";
import { createRunIntake } from "../../src/runs/run-intake";
import { createDispatcher } from "../../src/runs/dispatcher";
import { pgReceiverStore } from "../../src/store/postgres/pg-receiver-store";
import type { PostgresStore } from "../../src/store/postgres/pg-store";

describePostgres("a receiver's dispatcher over the shared store", () => {
  const fx = pgFixture();

  function receiver(store: PostgresStore, maxQueued = 1000) {
    const host = createFakeHost();
    const receiverStore = pgReceiverStore(store);
    const queue = createRunIntake({
      store: receiverStore,
      config: { maxQueued },
      mainKey: "main",
      logger: fx.logs.logger,
      isShuttingDown: () => false,
      depthRefreshMs: 0,
    });
    const dispatcher = createDispatcher({
      config: { allowedSessionKeyPrefixes: [] },
      runtime: host.api.runtime,
      queue,
      isShuttingDown: () => false,
      wakes: receiverStore,
    });
    return { host, dispatcher };
  }

  it("stores a run for the consumers and answers its id; stores a fan-out's runs together", async () => {
    const store = await fx.open();
    const { dispatcher, host } = receiver(store);
    const one = await dispatcher.agent(agentAction({ sessionKey: "hook:a" }), actionSource());
    expect(one.ok).toBe(true);
    const batch = await dispatcher.agentBatch(
      [1, 2, 3].map((i) => ({ action: agentAction({ sessionKey: `hook:f${i}` }), source: actionSource(), idempotencyKey: `["agent","k"]#${i}` })),
    );
    expect(batch.ok && batch.value.length).toBe(3);
    const queued = await store.runs.listByStatus(["queued"]);
    expect(queued.map((r) => r.action.sessionKey)).toEqual(["hook:a", "hook:f1", "hook:f2", "hook:f3"]);
    expect(queued[1]!.idempotencyKey).toBe('["agent","k"]#1');
    // Wrapped as untrusted content, as in one process.
    expect(queued[0]!.action.message).toContain("summarise the build");
    expect(queued[0]!.action.message).not.toBe("summarise the build");
    expect(host.turns).toEqual([]);
  });

  it("stores a wake for the consumer's main session instead of handing it to its own host", async () => {
    const store = await fx.open();
    const { dispatcher, host } = receiver(store);
    expect(await dispatcher.wake({ kind: "wake", text: "deploy done", mode: "now" }, actionSource({ hook: "wake" }))).toEqual({
      ok: true,
      value: { kind: "wake", mode: "now" },
    });
    expect(host.systemEvents).toEqual([]);
    expect(host.heartbeats).toEqual([]);
    const [w] = await store.wakes.take({ owner: "t", leaseMs: 1000, limit: 10 });
    expect(w!.event).toMatchObject({ mode: "now", reason: "hook:wake", meta: { kind: "wake", source: "hook:wake", requestId: "req-1", wrapped: true } });
    expect(String(w!.event.text)).toContain("deploy done");
  });

  it("refuses beyond hooks.runs.maxQueued counted over every receiver's runs: 503 overloaded with Retry-After", async () => {
    const store = await fx.open();
    const other = await fx.open(store.url);
    await receiver(other, 10).dispatcher.agentBatch([1, 2].map(() => ({ action: agentAction(), source: actionSource() })));
    const { dispatcher } = receiver(store, 2);
    const refused = await dispatcher.agent(agentAction(), actionSource());
    expect(refused.ok ? undefined : { status: refused.error.status, code: refused.error.code, headers: refused.error.headers }).toEqual({
      status: 503,
      code: "overloaded",
      headers: { "Retry-After": "30" },
    });
  });

  it("a Postgres that is down: 503 storage_unavailable, nothing stored", async () => {
    const store = await fx.open(undefined, { connectTimeoutMs: 1000 });
    const { dispatcher } = receiver(store);
    await fx.cluster().stop("fast");
    try {
      const r = await dispatcher.agent(agentAction(), actionSource());
      expect(r.ok ? undefined : { status: r.error.status, code: r.error.code }).toEqual({ status: 503, code: "storage_unavailable" });
      const w = await dispatcher.wake({ kind: "wake", text: "x", mode: "now" }, actionSource());
      expect(w.ok ? undefined : w.error.code).toBe("storage_unavailable");
    } finally {
      await fx.cluster().start();
    }
    expect(await store.runs.countQueued()).toBe(0);
  });
});
