/**
 * The run queue under storage faults and across a failed start (SPEC §7):
 * a run that cannot be stored is refused with 503 storage_unavailable; a start or
 * a summary that cannot be recorded is retried until the storage works again;
 * open() reads recovery without acting on it, so a start that fails after it
 * leaves every run as it was.
 */
import { wrappedContent } from "../helpers/wrapped";
import type { RunStore } from "../../src/core/runs";
import { createMemoryRunStore } from "../helpers/memory-run-store";
import { INTERRUPTED_REASON } from "../../src/runs/executor";
import { agentAction, createHarness, directSource, runRecord, stopAllHarnesses } from "./harness";
import { openPluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { recordingLogger, tempDir } from "../helpers/temp-dir";

afterEach(stopAllHarnesses);

const fault = (code: string) =>
  Object.assign(new Error(code === "SQLITE_FULL" ? "database or disk is full" : `${code}: no space left on device, write`), { code });

describe("run queue: storage faults", () => {
  it("a run that cannot be stored (disk full) is refused with 503 storage_unavailable and Retry-After, and the log names the cause", async () => {
    const store: RunStore = {
      ...createMemoryRunStore(),
      async stageInsert() {
        throw fault("SQLITE_FULL");
      },
    };
    const h = createHarness({ store });
    await h.queue.start();
    const res = await h.queue.accept(agentAction(), directSource({ requestId: "req-full" }));
    expect(!res.ok && [res.error.status, res.error.code, res.error.headers]).toEqual([503, "storage_unavailable", { "Retry-After": "30" }]);
    expect(h.queue.queuedCount).toBe(0);
    expect(h.host.logs.find((l) => l.message === "run could not be stored; not accepted")?.meta).toMatchObject({
      code: "storage_unavailable",
      cause: "SQLITE_FULL",
      requestId: "req-full",
    });
  });

  it("a run whose start could not be recorded (disk full) starts by itself once the store works again (regression: it waited for the next request)", async () => {
    const memory = createMemoryRunStore();
    let failures = 2;
    const store: RunStore = {
      ...memory,
      update(id, patch) {
        if (patch.status === "running" && failures-- > 0) throw fault("SQLITE_FULL");
        memory.update(id, patch);
      },
    };
    const h = createHarness({ store, queue: { retryDelayMs: 10 } });
    await h.queue.start();
    const res = await h.queue.accept(agentAction({ deliver: false }), directSource());
    if (!res.ok) throw res.error;
    expect((await h.finished(res.value.id)).status).toBe("succeeded");
    expect(failures).toBe(-1);
    expect(h.host.turns).toHaveLength(1);
  });

  it("a finished run whose final state could not be stored (disk full) stayed running in the store until a restart, which recovered it as interrupted; it is stored once the store works again", async () => {
    const memory = createMemoryRunStore();
    // From the run's final state on, three writes fail: that one, the summary's mark, the first retry.
    let armed = false;
    let toFail = 3;
    const store: RunStore = {
      ...memory,
      update(id, patch) {
        if (patch.status === "succeeded") armed = true;
        if (armed && toFail > 0) {
          toFail--;
          throw fault("SQLITE_FULL");
        }
        memory.update(id, patch);
      },
    };
    const h = createHarness({ store, queue: { retryDelayMs: 10 } });
    await h.queue.start();
    const res = await h.queue.accept(agentAction({ deliver: false, name: "Deploy" }), directSource());
    if (!res.ok) throw res.error;
    await h.host.waitFor(
      () => h.host.logs.some((l) => l.message === "run state could not be stored" && l.meta?.transition === "succeeded"),
      5000,
      "the failed write",
    );
    await h.host.waitFor(() => memory.get(res.value.id)?.status === "succeeded", 5000, "the final state to be stored");
    expect(toFail).toBe(0);
    expect(memory.get(res.value.id)).toMatchObject({ status: "succeeded", summaryPending: false, summary: "Hook Deploy: echo: Summarise the deploy" });
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual(["Hook Deploy: echo: Summarise the deploy"]);
  });

  it("a summary the host could not store stays pending and is posted once the host works again (regression: it was marked posted and lost)", async () => {
    const h = createHarness({ queue: { retryDelayMs: 10 } });
    const enqueue = h.host.api.runtime.sessions.enqueueSystemEvent;
    let failures = 1;
    (h.host.api.runtime.sessions as { enqueueSystemEvent: typeof enqueue }).enqueueSystemEvent = (key, text, meta) => {
      if (failures-- > 0) throw fault("ENOSPC");
      return enqueue(key, text, meta);
    };
    await h.queue.start();
    const res = await h.queue.accept(agentAction({ deliver: false, name: "Deploy" }), directSource());
    if (!res.ok) throw res.error;
    await h.finished(res.value.id);
    expect(h.host.logs.some((l) => l.message === "run summary could not be posted to the main session" && l.meta?.runId === res.value.id)).toBe(true);
    await h.host.waitFor(() => h.store.get(res.value.id)?.summaryPending === false, 5000, "the summary to be posted");
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual(["Hook Deploy: echo: Summarise the deploy"]);
  });
});

describe("run queue: storage faults during recovery (durable store)", () => {
  const cleanups: Array<() => void> = [];
  afterEach(async () => {
    await stopAllHarnesses();
    for (const c of cleanups.splice(0)) c();
  });

  /** A plugin database holding one run left running by a crash; `failing(patch)` makes an update fail like a full disk. */
  function crashedStore(failing: (patch: Parameters<RunStore["update"]>[1]) => boolean): { store: RunStore; durable: RunStore } {
    const tmp = tempDir();
    const log = recordingLogger("runs");
    const database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    cleanups.push(() => (database.close(), log.close(), tmp.remove()));
    const durable = createSqliteRunStore(database);
    durable.insert(
      runRecord({
        id: "r-running",
        seq: durable.nextSeq(),
        status: "running",
        startedAt: "2025-01-01T00:00:05.000Z",
        attempts: 1,
        action: agentAction({ name: "CRM", message: "was running", sessionKey: "hook:a", deliver: false }),
      }),
    );
    const store: RunStore = {
      ...durable,
      update(id, patch) {
        if (failing(patch)) throw fault("SQLITE_FULL");
        durable.update(id, patch);
      },
    };
    return { store, durable };
  }

  it("a run found running whose queued state (retryInterrupted) could not be stored (disk full) was neither run again nor reported until the next restart; it runs", async () => {
    let failures = 1;
    const { store, durable } = crashedStore((patch) => patch.status === "queued" && failures-- > 0);
    const h = createHarness({ store, config: { retryInterrupted: true }, queue: { retryDelayMs: 10 } });
    await h.queue.start();
    expect(failures).toBe(0);
    expect((await h.finished("r-running")).status).toBe("succeeded");
    expect(h.host.turns.map((t) => t.message)).toEqual(["was running"]);
    await h.host.waitFor(() => durable.get("r-running")?.summaryPending === undefined, 5000, "the summary marked posted");
    expect(durable.get("r-running")).toMatchObject({ status: "succeeded", attempts: 2 });
  });

  it("a run found running whose interrupted state could not be stored (disk full) was reported but stayed running in the store (and GET /runs) until a restart, which reported it again; the state is stored once the store works", async () => {
    let failures = 2; // the interrupted state, then the summary's mark
    const { store, durable } = crashedStore(() => failures-- > 0);
    const h = createHarness({ store, queue: { retryDelayMs: 10 } });
    await h.queue.start();
    expect(failures).toBeLessThanOrEqual(0);
    await h.host.waitFor(() => durable.get("r-running")?.status === "interrupted", 5000, "the interrupted state to be stored");
    await h.host.waitFor(() => durable.get("r-running")?.summaryPending === undefined, 5000, "the summary marked posted");
    expect(durable.get("r-running")).toMatchObject({
      status: "interrupted",
      error: INTERRUPTED_REASON,
      summary: `Hook CRM (interrupted): ${INTERRUPTED_REASON}`,
    });
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([`Hook CRM (interrupted): ${INTERRUPTED_REASON}`]);
    expect(h.host.turns).toEqual([]);
  });
});

describe("run queue: open() before a start that may still fail", () => {
  function seeded(): RunStore {
    const store = createMemoryRunStore();
    store.insert(runRecord({ id: "r-running", seq: store.nextSeq(), status: "running", action: agentAction({ name: "CRM", sessionKey: "hook:a" }) }));
    store.insert(runRecord({ id: "r-queued", seq: store.nextSeq(), action: agentAction({ message: "queued", sessionKey: "hook:b", deliver: false }) }));
    store.insert(runRecord({ id: "r-outbox", seq: store.nextSeq(), status: "succeeded", summary: "Hook Old: done", summaryPending: true }));
    return store;
  }

  it("reads recovery without acting on it: stopped after open(), no run was started, marked or re-queued and nothing was posted", async () => {
    const store = seeded();
    const writes: string[] = [];
    const watched: RunStore = { ...store, update: (id, patch) => (writes.push(id), store.update(id, patch)) };
    const h = createHarness({ store: watched });
    h.queue.open();
    await h.queue.stop(0);
    expect(writes).toEqual([]);
    expect(h.host.turns).toEqual([]);
    expect(h.host.systemEvents).toEqual([]);
    expect([store.get("r-running")?.status, store.get("r-queued")?.status, store.get("r-outbox")?.summaryPending]).toEqual(["running", "queued", true]);
  });

  it("start() after open() recovers what open() read", async () => {
    const h = createHarness({ store: seeded() });
    h.queue.open();
    expect(h.host.turns).toEqual([]);
    await h.queue.start();
    expect(h.store.get("r-running")).toMatchObject({ status: "interrupted", error: INTERRUPTED_REASON });
    expect((await h.finished("r-queued")).status).toBe("succeeded");
    expect(h.store.get("r-outbox")?.summaryPending).toBe(false);
  });
});
