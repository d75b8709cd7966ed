import type { RunTurnRequest, RunTurnResult } from "../../src/host-contract/host-api";
import type { RunExecutor, RunStore } from "../../src/core/runs";
import { createMemoryRunStore } from "../helpers/memory-run-store";
import { INTERRUPTED_REASON } from "../../src/runs/executor";
import { agentAction, createHarness, stopAllHarnesses, deferred, directSource, runRecord } from "./harness";
import { wrappedContent } from "../helpers/wrapped";

afterEach(stopAllHarnesses);

/** A runner whose turns block until the test releases them, instrumented for concurrency. */
function gatedRunner() {
  const gates = new Map<string, (r: RunTurnResult) => void>();
  let active = 0;
  let maxActive = 0;
  const activeByKey = new Map<string, number>();
  let maxPerKey = 0;
  const order: string[] = [];
  const runTurn = (req: RunTurnRequest): Promise<RunTurnResult> => {
    active++;
    maxActive = Math.max(maxActive, active);
    const k = (activeByKey.get(req.sessionKey) ?? 0) + 1;
    activeByKey.set(req.sessionKey, k);
    maxPerKey = Math.max(maxPerKey, k);
    order.push(req.message);
    return new Promise<RunTurnResult>((resolve) => gates.set(req.message, resolve)).finally(() => {
      active--;
      activeByKey.set(req.sessionKey, activeByKey.get(req.sessionKey)! - 1);
    });
  };
  return {
    runTurn,
    release(message: string, reply = `done ${message}`) {
      const open = gates.get(message);
      if (!open) throw new Error(`turn ${message} has not started`);
      gates.delete(message);
      open({ status: "ok", reply });
    },
    get maxActive() {
      return maxActive;
    },
    get maxPerKey() {
      return maxPerKey;
    },
    order,
  };
}

describe("run queue", () => {
  it("persists the run synchronously as queued, then runs it and records the outcome", async () => {
    const h = createHarness();
    await h.queue.start();
    const res = await h.queue.accept(agentAction({ deliver: false }), directSource(), { idempotencyKey: "agent:abc" });
    if (!res.ok) throw res.error;
    const id = "00000000-0000-4000-8000-000000000001";
    expect(res.value).toEqual({
      ...runRecord({ id, seq: 1, createdAt: res.value.createdAt, action: agentAction({ deliver: false }) }),
      idempotencyKey: "agent:abc",
    });
    expect(h.store.get(id)?.status).toBe("queued");
    expect(h.queue.queuedCount).toBe(1);
    expect(h.host.turns).toHaveLength(0);

    const done = await h.finished(id);
    expect(done).toMatchObject({ status: "succeeded", summary: "Hook Deploy: echo: Summarise the deploy", idempotencyKey: "agent:abc" });
    expect(Date.parse(done.startedAt!)).toBeGreaterThan(Date.parse(done.createdAt));
    expect(Date.parse(done.finishedAt!)).toBeGreaterThan(Date.parse(done.startedAt!));
    expect(done.error).toBeUndefined();
    expect(h.queue.get(id)).toEqual(done);
    expect(h.queue.queuedCount).toBe(0);
  });

  it("a run whose executor failed unexpectedly still posts its summary to the main session (regression: it stayed pending until a restart)", async () => {
    // execute() is meant never to throw; this one does (a bug in it, or a host breaking its contract).
    let real: RunExecutor | undefined;
    const failing: RunExecutor = {
      execute: async () => {
        throw new Error("executor bug");
      },
      reportInterrupted: (r) => real!.reportInterrupted(r),
      repostSummary: (r) => real!.repostSummary(r),
    };
    const h = createHarness({ queue: { executor: failing } });
    real = h.executor;
    await h.queue.start();
    const res = await h.queue.accept(agentAction({ deliver: false }), directSource());
    if (!res.ok) throw res.error;
    const done = await h.finished(res.value.id);
    expect(done.status).toBe("failed");
    expect(done.error).toBe("the run failed unexpectedly: executor bug");
    await h.host.waitFor(() => h.host.systemEvents.length === 1);
    expect(wrappedContent(h.host.systemEvents[0].text)).toBe(done.summary);
    expect(h.host.systemEvents[0].meta).toMatchObject({ kind: "run-summary", runId: res.value.id });
    await h.host.waitFor(() => h.store.get(res.value.id)?.summaryPending === false);
    expect(h.host.heartbeats).toEqual([{ reason: "hook:agent" }]);
  });

  it("records the delivery problem as the run's error", async () => {
    const h = createHarness();
    await h.queue.start();
    const res = await h.queue.accept(agentAction(), directSource());
    if (!res.ok) throw res.error;
    const done = await h.finished(res.value.id);
    expect(done.status).toBe("succeeded");
    expect(done.error).toMatch(/^no last route: /);
  });

  it("marks a run running with startedAt while its turn is in progress", async () => {
    const gate = gatedRunner();
    const h = createHarness({ host: { runTurn: gate.runTurn } });
    await h.queue.start();
    const res = await h.queue.accept(agentAction({ message: "m1" }), directSource());
    if (!res.ok) throw res.error;
    await h.turns(1);
    expect(h.store.get(res.value.id)).toMatchObject({ status: "running" });
    expect(h.store.get(res.value.id)?.startedAt).toEqual(expect.any(String));
    gate.release("m1");
    expect((await h.finished(res.value.id)).status).toBe("succeeded");
  });

  it("runs at most maxConcurrent runs at once", async () => {
    const gate = gatedRunner();
    const h = createHarness({ host: { runTurn: gate.runTurn }, config: { maxConcurrent: 2 } });
    await h.queue.start();
    const ids = await Promise.all(
      ["a", "b", "c", "d", "e"].map(async (m) => {
        const r = await h.queue.accept(agentAction({ message: m, sessionKey: `hook:${m}` }), directSource());
        if (!r.ok) throw r.error;
        return r.value.id;
      }),
    );
    await h.turns(2);
    expect(gate.order).toEqual(["a", "b"]);
    expect(h.queue.queuedCount).toBe(3);
    for (const [i, m] of ["a", "b", "c", "d", "e"].entries()) {
      await h.turns(Math.min(i + 2, 5));
      gate.release(m);
      await h.finished(ids[i]);
    }
    expect(gate.maxActive).toBe(2);
    expect(gate.order).toEqual(["a", "b", "c", "d", "e"]);
  });

  it("runs one session key one at a time, in arrival order, while other keys proceed", async () => {
    const gate = gatedRunner();
    const h = createHarness({ host: { runTurn: gate.runTurn }, config: { maxConcurrent: 4 } });
    await h.queue.start();
    const enqueue = async (message: string, sessionKey: string) => {
      const r = await h.queue.accept(agentAction({ message, sessionKey }), directSource());
      if (!r.ok) throw r.error;
      return r.value.id;
    };
    const k1 = await enqueue("k1-first", "hook:crm-1");
    const k2 = await enqueue("k1-second", "hook:crm-1");
    const other = await enqueue("other", "hook:other");
    const k3 = await enqueue("k1-third", "hook:crm-1");
    await h.turns(2);
    expect(gate.order).toEqual(["k1-first", "other"]);
    gate.release("other");
    await h.finished(other);
    expect(h.host.turns).toHaveLength(2);
    gate.release("k1-first");
    await h.finished(k1);
    await h.turns(3);
    gate.release("k1-second");
    await h.finished(k2);
    await h.turns(4);
    gate.release("k1-third");
    await h.finished(k3);
    expect(gate.order).toEqual(["k1-first", "other", "k1-second", "k1-third"]);
    expect(gate.maxPerKey).toBe(1);
  });

  it("refuses beyond maxQueued with 503 overloaded and Retry-After", async () => {
    const gate = gatedRunner();
    const h = createHarness({ host: { runTurn: gate.runTurn }, config: { maxConcurrent: 1, maxQueued: 2 } });
    await h.queue.start();
    const first = await h.queue.accept(agentAction({ message: "m1" }), directSource());
    await h.turns(1);
    expect((await h.queue.accept(agentAction({ message: "m2" }), directSource())).ok).toBe(true);
    expect((await h.queue.accept(agentAction({ message: "m3" }), directSource())).ok).toBe(true);
    const refused = await h.queue.accept(agentAction({ message: "m4" }), directSource({ requestId: "req-4" }));
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.status).toBe(503);
    expect(refused.error.code).toBe("overloaded");
    expect(refused.error.headers).toEqual({ "Retry-After": "30" });
    expect(refused.error.message).toBe("Too many runs are queued (hooks.runs.maxQueued is 2); retry later.");
    expect(h.queue.queuedCount).toBe(2);
    expect(h.store.listByStatus(["queued", "running", "succeeded"])).toHaveLength(3);
    gate.release("m1");
    if (first.ok) await h.finished(first.value.id);
    await h.turns(2);
    expect((await h.queue.accept(agentAction({ message: "m5" }), directSource())).ok).toBe(true);
  });

  it("uses the configured Retry-After", async () => {
    const h = createHarness({ config: { maxQueued: 0 }, queue: { overloadRetryAfterSeconds: 7 } });
    await h.queue.start();
    const refused = await h.queue.accept(agentAction(), directSource());
    expect(!refused.ok && refused.error.headers).toEqual({ "Retry-After": "7" });
  });

  it("refuses a run addressed to the main session", async () => {
    const h = createHarness();
    const res = await h.queue.accept(agentAction({ sessionKey: "main" }), directSource());
    expect(res.ok).toBe(false);
    if (res.ok) return;
    expect(res.error.code).toBe("invalid_payload");
    expect(res.error.details).toEqual([{ field: "sessionKey", message: "sessionKey must not address the main session." }]);
  });

  it("answers internal_error when the store cannot persist the run", async () => {
    const store: RunStore = {
      ...createMemoryRunStore(),
      async stageInsert() {
        throw new Error("disk full");
      },
    };
    const h = createHarness({ store });
    await h.queue.start();
    const res = await h.queue.accept(agentAction(), directSource());
    expect(!res.ok && [res.error.code, res.error.status, res.error.message]).toEqual([
      "internal_error",
      500,
      "The run could not be stored, so it was not accepted; retry later.",
    ]);
    expect(h.queue.queuedCount).toBe(0);
  });

  it("does not start a run whose running state cannot be stored", async () => {
    const memory = createMemoryRunStore();
    const store: RunStore = {
      ...memory,
      update(id, patch) {
        if (patch.status === "running") throw new Error("database is closed");
        memory.update(id, patch);
      },
    };
    const h = createHarness({ store });
    await h.queue.start();
    const res = await h.queue.accept(agentAction(), directSource());
    if (!res.ok) throw res.error;
    await h.host.waitFor(() => h.host.logs.some((l) => l.meta?.code === "store_failed" && l.meta?.transition === "running"));
    expect(h.host.turns).toHaveLength(0);
    expect(h.store.get(res.value.id)?.status).toBe("queued");
    expect(h.queue.queuedCount).toBe(1);
  });

  describe("stop", () => {
    it("lets a running run finish within the grace period, keeps queued runs, refuses new ones", async () => {
      const gate = gatedRunner();
      const h = createHarness({ host: { runTurn: gate.runTurn }, config: { maxConcurrent: 1 } });
      await h.queue.start();
      const a = await h.queue.accept(agentAction({ message: "m1" }), directSource());
      const b = await h.queue.accept(agentAction({ message: "m2" }), directSource());
      if (!a.ok || !b.ok) throw new Error("enqueue failed");
      await h.turns(1);
      const stopped = h.queue.stop(10_000);
      const refused = await h.queue.accept(agentAction({ message: "m3" }), directSource());
      expect(!refused.ok && [refused.error.code, refused.error.status]).toEqual(["shutting_down", 503]);
      gate.release("m1");
      await stopped;
      expect(h.store.get(a.value.id)?.status).toBe("succeeded");
      expect(h.store.get(b.value.id)?.status).toBe("queued");
      expect(h.host.turns).toHaveLength(1);

      // The next start resumes the kept run.
      const next = createHarness({ store: h.store });
      await next.queue.start();
      expect((await next.finished(b.value.id)).status).toBe("succeeded");
    });

    it("leaves a run still in progress after the grace period running, for the next start to report", async () => {
      const signals: AbortSignal[] = [];
      const never = deferred<RunTurnResult>();
      const h = createHarness({ host: { runTurn: (req) => (signals.push(req.signal), never.promise) } });
      await h.queue.start();
      const a = await h.queue.accept(agentAction({ message: "slow", name: "Slow" }), directSource());
      if (!a.ok) throw a.error;
      await h.turns(1);
      await h.queue.stop(50);
      expect(signals[0].aborted).toBe(true);
      expect(h.store.get(a.value.id)?.status).toBe("running");
      expect(h.host.systemEvents).toEqual([]);

      const next = createHarness({ store: h.store });
      await next.queue.start();
      expect(next.store.get(a.value.id)).toMatchObject({ status: "interrupted", summary: `Hook Slow (interrupted): ${INTERRUPTED_REASON}` });
      expect(next.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([`Hook Slow (interrupted): ${INTERRUPTED_REASON}`]);
      never.resolve({ status: "ok", reply: "late" });
    });

    it("is idempotent and returns at once with nothing running", async () => {
      const h = createHarness();
      await h.queue.start();
      const first = h.queue.stop(1000);
      expect(h.queue.stop(1000)).toBe(first);
      await first;
      expect((await h.queue.accept(agentAction(), directSource())).ok).toBe(false);
    });
  });
});
