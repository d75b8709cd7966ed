/**
 * The runs helper's queue and executor on the durable SQLite store: concurrency,
 * per-session order, backpressure, recovery after a crash, retryInterrupted, and
 * the shutdown grace period — with the store reopened the way a restart does.
 */
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createSqliteRunStore } from "../../src/store/run-store";
import { createRunQueue } from "../../src/runs/run-queue";
import { createRunExecutor } from "../../src/runs/executor";
import { gaveUpReason, MAX_RUN_ATTEMPTS } from "../../src/runs/recovery";
import { createPluginEmitter } from "../../src/core/events";
import type { RunsConfig } from "../../src/config/types";
import type { RunQueue, RunStatus } from "../../src/core/runs";
import { createFakeHost, type FakeHost } from "../helpers/fake-host";
import { actionSource, agentAction, gatedRunner, recordingLogger, tempDir } from "../helpers/temp-dir";
import { wrappedContent } from "../helpers/wrapped";

describe("run queue on the durable store", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let host: FakeHost;
  let runner: ReturnType<typeof gatedRunner>;
  let database: PluginDatabase;
  let queue: RunQueue;
  const queues: RunQueue[] = [];
  const runsConfig = (o: Partial<RunsConfig> = {}): RunsConfig => ({
    maxConcurrent: 2,
    maxQueued: 5,
    shutdownGraceSeconds: 1,
    retryInterrupted: false,
    maxWaitSeconds: 30,
    maxWaitingPerClient: 8,
    retentionDays: 7,
    maxFinished: 1000,
    ...o,
  });

  /** Opens the database and a queue on it, like the plugin's runs service. */
  async function boot(config: RunsConfig) {
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    const emitter = createPluginEmitter();
    queue = createRunQueue({
      store: createSqliteRunStore(database),
      executor: createRunExecutor({ runtime: host.api.runtime, logger: log.logger, emitter }),
      config,
      runtime: host.api.runtime,
      logger: log.logger,
      emitter,
    });
    queues.push(queue);
    await queue.start();
    return queue;
  }
  /** kill -9 as far as the store is concerned: the connection goes away mid-run; nothing is recorded after. */
  async function crash() {
    database.close();
    await queue.stop(0); // ends this in-process "dead" queue's turns; they record nothing (store closed)
  }
  const enqueue = async (message: string, sessionKey = `hook:${message}`) => {
    const r = await queue.accept(agentAction({ message, sessionKey, name: message, deliver: false, wakeMode: "next-heartbeat" }), actionSource());
    if (!r.ok) throw r.error;
    return r.value;
  };
  const statusOf = (id: string): RunStatus | undefined => queue.get(id)?.status;
  const waitStatus = (id: string, status: RunStatus) => host.waitFor(() => statusOf(id) === status, 5000, `run ${id} ${status}`);

  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("runs");
    runner = gatedRunner();
    host = createFakeHost({ stateDir: tmp.dir, runTurn: (req) => runner.runTurn(req) });
  });
  afterEach(async () => {
    for (const q of queues.splice(0)) await q.stop(0).catch(() => undefined);
    database.close();
    log.close();
    tmp.remove();
  });

  it("runs at most maxConcurrent at once and persists each status", async () => {
    await boot(runsConfig({ maxConcurrent: 2 }));
    const runs = await Promise.all(["a", "b", "c"].map((m) => enqueue(m)));
    await host.waitFor(() => runner.active.size === 2, 5000, "two turns");
    expect(runs.map((r) => statusOf(r.id))).toEqual(["running", "running", "queued"]);
    runner.release("a");
    await waitStatus(runs[0]!.id, "succeeded");
    await host.waitFor(() => runner.started.includes("c"), 5000, "third turn");
    runner.release("b");
    runner.release("c");
    await waitStatus(runs[2]!.id, "succeeded");
    expect(runner.maxActive).toBe(2);
    const done = queue.get(runs[0]!.id)!;
    expect(done.summary).toBe("Hook a: done a");
    expect(done.startedAt).toBeDefined();
    expect(done.finishedAt).toBeDefined();
  });

  it("keeps per-session order: runs of one key never overlap and run in arrival order", async () => {
    await boot(runsConfig({ maxConcurrent: 4 }));
    const runs = await Promise.all(["s1", "s2", "s3"].map((m) => enqueue(m, "hook:same")));
    await host.waitFor(() => runner.started.length === 1, 5000, "first turn");
    expect(runs.map((r) => statusOf(r.id))).toEqual(["running", "queued", "queued"]);
    for (const m of ["s1", "s2", "s3"]) {
      await host.waitFor(() => runner.active.has(m), 5000, `turn ${m}`);
      expect(runner.active.size).toBe(1);
      runner.release(m);
    }
    await waitStatus(runs[2]!.id, "succeeded");
    expect(runner.started).toEqual(["s1", "s2", "s3"]);
  });

  it("with maxQueued 5 and the runner blocked, the sixth waiting run is refused with 503 overloaded and Retry-After", async () => {
    await boot(runsConfig({ maxConcurrent: 1, maxQueued: 5 }));
    await enqueue("r0");
    await host.waitFor(() => runner.active.size === 1, 5000, "blocked turn");
    for (let i = 1; i <= 5; i++) await enqueue(`r${i}`);
    const refused = await queue.accept(agentAction({ message: "r6" }), actionSource());
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.code).toBe("overloaded");
    expect(refused.error.status).toBe(503);
    expect(refused.error.headers).toEqual({ "Retry-After": "30" });
    expect(refused.error.message).toBe("Too many runs are queued (hooks.runs.maxQueued is 5); retry later.");
    expect(queue.queuedCount).toBe(5);
    // Nothing of the refused run was stored.
    expect((database.db.prepare("SELECT COUNT(*) AS n FROM runs").get() as { n: number }).n).toBe(6);
  });

  it("after a crash, a run that was running is reported interrupted (not re-run) and queued runs resume in order", async () => {
    await boot(runsConfig({ maxConcurrent: 1 }));
    const first = await enqueue("was-running", "hook:k");
    const second = await enqueue("was-queued-1", "hook:k");
    const third = await enqueue("was-queued-2", "hook:other");
    await host.waitFor(() => runner.active.has("was-running"), 5000, "first turn");
    await crash();
    host.systemEvents.length = 0;

    await boot(runsConfig({ maxConcurrent: 1 }));
    expect(statusOf(first.id)).toBe("interrupted");
    expect(queue.get(first.id)!.summary).toMatch(/^Hook was-running \(interrupted\): the gateway stopped while this run was in progress/);
    expect(host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([queue.get(first.id)!.summary]);
    await host.waitFor(() => runner.active.has("was-queued-1"), 5000, "resumed turn");
    runner.release("was-queued-1");
    await host.waitFor(() => runner.active.has("was-queued-2"), 5000, "resumed turn 2");
    runner.release("was-queued-2");
    await waitStatus(third.id, "succeeded");
    expect(statusOf(second.id)).toBe("succeeded");
    expect(runner.started.filter((m) => m === "was-running")).toHaveLength(1);
    expect(runner.started.slice(-2)).toEqual(["was-queued-1", "was-queued-2"]);
  });

  it("with retryInterrupted, a run that was running is queued again and re-run", async () => {
    await boot(runsConfig({ maxConcurrent: 1, retryInterrupted: true }));
    const run = await enqueue("again");
    await host.waitFor(() => runner.active.has("again"), 5000, "turn");
    await crash();

    await boot(runsConfig({ maxConcurrent: 1, retryInterrupted: true }));
    await host.waitFor(() => runner.started.filter((m) => m === "again").length === 2, 5000, "re-run");
    runner.release("again", { status: "ok", reply: "second time" });
    await waitStatus(run.id, "succeeded");
    expect(queue.get(run.id)!.summary).toBe("Hook again: second time");
    expect(host.systemEvents.some((e) => e.text.includes("(interrupted)"))).toBe(false);
  });

  it("regression: with retryInterrupted, a run that crashed the gateway at every start was queued again for ever; after MAX_RUN_ATTEMPTS interrupted starts it is recorded interrupted, reported and logged once, and not started again", async () => {
    const config = runsConfig({ maxConcurrent: 1, retryInterrupted: true });
    await boot(config);
    const run = await enqueue("poison");
    for (let start = 1; start <= MAX_RUN_ATTEMPTS; start++) {
      await host.waitFor(() => runner.started.filter((m) => m === "poison").length === start, 5000, `start ${start}`);
      // Counted in the write that marked it running: the crash comes right after.
      expect(database.db.prepare("SELECT status, attempts FROM runs WHERE id = ?").get(run.id)).toEqual({ status: "running", attempts: start });
      await crash();
      await boot(config);
    }
    expect(queue.get(run.id)).toMatchObject({ status: "interrupted", attempts: MAX_RUN_ATTEMPTS, error: gaveUpReason(MAX_RUN_ATTEMPTS) });
    const summary = `Hook poison (interrupted): the gateway stopped ${MAX_RUN_ATTEMPTS} times while this run was running alone; it was not retried again (hooks.runs.retryInterrupted gives up on a run interrupted ${MAX_RUN_ATTEMPTS} times while running alone)`;
    expect(queue.get(run.id)!.summary).toBe(summary);
    await host.waitFor(() => queue.get(run.id)!.summaryPending !== true, 5000, "summary posted");
    expect(host.systemEvents.map((e) => wrappedContent(e.text)).filter((t) => t.startsWith("Hook poison"))).toEqual([summary]);
    const gaveUp = log.lines.filter((l) => l.message.includes("not queued again"));
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]).toMatchObject({ level: "error", meta: expect.objectContaining({ runId: run.id, attempts: MAX_RUN_ATTEMPTS }) });
    expect(JSON.stringify(gaveUp)).not.toContain("poison"); // no payload, no hook-chosen name
    // The next runs are not held up, and the poison run is never started again.
    const next = await enqueue("next");
    await host.waitFor(() => runner.active.has("next"), 5000, "next turn");
    runner.release("next");
    await waitStatus(next.id, "succeeded");
    expect(runner.started.filter((m) => m === "poison")).toHaveLength(MAX_RUN_ATTEMPTS);
  });

  it("regression: a run that was running beside a poison run is not given up; with maxConcurrent 2 both were counted at every crash and given up together after MAX_RUN_ATTEMPTS crashes", async () => {
    const config = runsConfig({ maxConcurrent: 2, retryInterrupted: true });
    await boot(config);
    const poison = await enqueue("poison");
    const innocent = await enqueue("innocent");
    const row = (id: string) => database.db.prepare("SELECT status, attempts FROM runs WHERE id = ?").get(id) as { status: string; attempts: number };
    await host.waitFor(() => runner.active.has("poison") && runner.active.has("innocent"), 5000, "both running");
    // The poison run kills the gateway whenever it runs; the other turns would finish.
    let crashes = 0;
    while (crashes < 2 * MAX_RUN_ATTEMPTS && row(poison.id).status !== "interrupted") {
      await crash();
      crashes++;
      await boot(config);
      await host.waitFor(() => runner.active.has("poison") || row(poison.id).status === "interrupted", 5000, `start after crash ${crashes}`);
      // Started again, it runs alone: nothing beside it, whatever maxConcurrent allows.
      if (runner.active.has("poison")) expect([...runner.active.keys()]).toEqual(["poison"]);
    }
    await host.waitFor(() => runner.active.has("innocent"), 5000, "the innocent run started again");
    runner.release("innocent", { status: "ok", reply: "finished" });
    await waitStatus(innocent.id, "succeeded");
    expect(queue.get(innocent.id)!.summary).toBe("Hook innocent: finished");
    expect(queue.get(poison.id)).toMatchObject({ status: "interrupted", error: gaveUpReason(MAX_RUN_ATTEMPTS) });
    // One crash with both running (counted against neither), then MAX_RUN_ATTEMPTS with the poison run alone.
    expect(crashes).toBe(1 + MAX_RUN_ATTEMPTS);
    expect(row(poison.id)).toEqual({ status: "interrupted", attempts: MAX_RUN_ATTEMPTS });
    expect(runner.started.filter((m) => m === "poison")).toHaveLength(1 + MAX_RUN_ATTEMPTS);
    expect(runner.started.filter((m) => m === "innocent")).toHaveLength(2);
  });

  it("stop(grace): a running run that finishes within the grace is recorded; queued runs stay queued and resume after restart", async () => {
    await boot(runsConfig({ maxConcurrent: 1 }));
    const running = await enqueue("in-progress");
    const waiting = await enqueue("waiting");
    await host.waitFor(() => runner.active.has("in-progress"), 5000, "turn");
    const stopped = queue.stop(10_000);
    expect(await queue.accept(agentAction({ message: "late" }), actionSource())).toMatchObject({ ok: false, error: { code: "shutting_down" } });
    runner.release("in-progress");
    await stopped;
    expect(statusOf(running.id)).toBe("succeeded");
    expect(statusOf(waiting.id)).toBe("queued");
    expect(runner.started).toEqual(["in-progress"]);
    database.close();

    await boot(runsConfig({ maxConcurrent: 1 }));
    await host.waitFor(() => runner.active.has("waiting"), 5000, "resumed turn");
    runner.release("waiting");
    await waitStatus(waiting.id, "succeeded");
  });

  it("stop(grace): a run still going after the grace is cancelled, left running, and reported interrupted at the next start", async () => {
    await boot(runsConfig({ maxConcurrent: 1 }));
    const run = await enqueue("slow");
    await host.waitFor(() => runner.active.has("slow"), 5000, "turn");
    await queue.stop(50);
    expect(statusOf(run.id)).toBe("running");
    expect(runner.active.size).toBe(0); // its signal was aborted
    database.close();

    await boot(runsConfig({ maxConcurrent: 1 }));
    expect(statusOf(run.id)).toBe("interrupted");
    expect(runner.started).toEqual(["slow"]);
  });
});
