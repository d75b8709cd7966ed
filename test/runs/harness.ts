/**
 * Test harness of the runs module: fake host + memory store + real executor,
 * queue and dispatcher, with deterministic clocks and id generators and a
 * recorder of plugin events.
 */
import { createFakeHost, type FakeHost, type FakeHostOptions } from "../helpers/fake-host";
import { createPluginLogger } from "../../src/logging/logger";
import { createPluginEmitter, type PluginEmitter, type PluginEvents } from "../../src/core/events";
import type { RunsConfig } from "../../src/config/types";
import type { ActionSource, AgentAction } from "../../src/core/actions";
import type { RunExecutor, RunQueue, RunRecord, RunStore } from "../../src/core/runs";
import type { Dispatcher } from "../../src/core/ports";
import { createMemoryRunStore } from "../helpers/memory-run-store";
import { createRunExecutor } from "../../src/runs/executor";
import { createRunQueue, type RunQueueOptions } from "../../src/runs/run-queue";
import { createDispatcher } from "../../src/runs/dispatcher";

export const T0 = Date.parse("2025-01-01T00:00:00.000Z");

/** A clock that advances one second per reading. */
export function steppingClock(start = T0): () => number {
  let n = 0;
  return () => start + 1000 * n++;
}

/** uuid-v4-shaped ids 1, 2, 3… */
export function sequentialUuids(): () => string {
  let n = 0;
  return () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
}

/** Marker ids m1, m2… as 16-hex strings. */
export function sequentialMarkerIds(): () => string {
  let n = 0;
  return () => (++n).toString(16).padStart(16, "0");
}

export function runsConfig(over: Partial<RunsConfig> = {}): RunsConfig {
  return {
    maxConcurrent: 4,
    maxQueued: 1000,
    shutdownGraceSeconds: 5,
    retryInterrupted: false,
    maxWaitSeconds: 30,
    maxWaitingPerClient: 8,
    retentionDays: 7,
    maxFinished: 1000,
    ...over,
  };
}

export function agentAction(over: Partial<AgentAction> = {}): AgentAction {
  return {
    kind: "agent",
    message: "Summarise the deploy",
    name: "Deploy",
    sessionKey: "hook:deploy-1",
    wakeMode: "now",
    deliver: true,
    channel: "last",
    timeoutSeconds: 600,
    ...over,
  };
}

export function directSource(over: Partial<ActionSource> = {}): ActionSource {
  return { hook: "agent", requestId: "req-1", allowUnsafeExternalContent: false, ...over };
}

export function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    id: "00000000-0000-4000-8000-00000000aaaa",
    status: "queued",
    seq: 1,
    action: agentAction(),
    source: directSource(),
    createdAt: new Date(T0).toISOString(),
    ...over,
  };
}

/** A promise with its resolve exposed. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export type Recorded = { [K in keyof PluginEvents]: { name: K; event: Parameters<PluginEvents[K]>[0] } }[keyof PluginEvents];

export interface Harness {
  host: FakeHost;
  store: RunStore;
  emitter: PluginEmitter;
  events: Recorded[];
  executor: RunExecutor;
  queue: RunQueue;
  dispatcher: Dispatcher;
  shuttingDown: { value: boolean };
  /** Waits (bounded) until run `id` emitted run:finished, and returns its stored record. */
  finished(id: string, timeoutMs?: number): Promise<RunRecord>;
  /** Waits (bounded) until `n` turns have reached the runner. */
  turns(n: number): Promise<void>;
}

export interface HarnessOptions {
  host?: FakeHostOptions;
  config?: Partial<RunsConfig>;
  store?: RunStore;
  queue?: Partial<RunQueueOptions>;
}

const live: Harness[] = [];

/**
 * Stops every harness queue created so far (grace 0: runs still in progress are
 * cancelled, which clears their timeout timers). Use in `afterEach`.
 */
export async function stopAllHarnesses(): Promise<void> {
  await Promise.all(live.splice(0).map((h) => h.queue.stop(0)));
}

export function createHarness(opts: HarnessOptions = {}): Harness {
  const host = createFakeHost(opts.host);
  const store = opts.store ?? createMemoryRunStore();
  const emitter = createPluginEmitter();
  const events: Recorded[] = [];
  emitter.on("run:started", (event) => events.push({ name: "run:started", event }));
  emitter.on("run:finished", (event) => events.push({ name: "run:finished", event }));
  const logger = createPluginLogger(host.api.logger).forModule("runs");
  const clock = steppingClock();
  const executor = createRunExecutor({ runtime: host.api.runtime, logger, emitter, clock, idGen: sequentialMarkerIds() });
  const queue = createRunQueue({
    store,
    executor,
    config: runsConfig(opts.config),
    runtime: host.api.runtime,
    logger,
    emitter,
    clock,
    idGen: sequentialUuids(),
    ...opts.queue,
  });
  const shuttingDown = { value: false };
  const dispatcher = createDispatcher({
    config: { allowedSessionKeyPrefixes: ["hook:"] },
    runtime: host.api.runtime,
    queue,
    isShuttingDown: () => shuttingDown.value,
    idGen: sequentialMarkerIds(),
  });
  const harness: Harness = {
    host,
    store,
    emitter,
    events,
    executor,
    queue,
    dispatcher,
    shuttingDown,
    async finished(id, timeoutMs = 5000) {
      await host.waitFor(() => events.some((e) => e.name === "run:finished" && e.event.runId === id), timeoutMs, `run ${id} to finish`);
      const run = store.get(id);
      if (!run) throw new Error(`run ${id} is not in the store`);
      return run;
    },
    async turns(n) {
      await host.waitFor(() => host.turns.length >= n, 5000, `${n} turns`);
    },
  };
  live.push(harness);
  return harness;
}
