/**
 * Regression (issue 32, inside OpenClaw): a run's summary — the `Hook <name> (interrupted): …` report of a run a stop
 * cut off, like every summary — was handed to OpenClaw's main session, which keeps its events in memory, and marked
 * posted at once; a second stop before a main-session turn took it lost the report (the run was then reported zero
 * times). On a host with `sessions.eventsInMemory` a summary is now kept in the plugin's outbox like a wake until a
 * turn carried it, handed again at the next start, and a summary posted again after a crash (its run still marked
 * "summary pending") is not handed a second time.
 */
import { EventEmitter } from "eventemitter3";
import type { HostEvents } from "../../src/host-contract/host-api";
import { openPluginDatabase, type PluginDatabase } from "../../src/store/database";
import { createSqliteSessionEventStore } from "../../src/store/session-event-store";
import { createSessionOutbox } from "../../src/runs/session-outbox";
import { createRunExecutor } from "../../src/runs/executor";
import { createPluginEmitter } from "../../src/core/events";
import { createPluginLogger } from "../../src/logging/logger";
import { createFakeHost } from "../helpers/fake-host";
import { recordingLogger, tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";
import { agentAction, directSource, runRecord } from "./harness";

describe("a run's summary on a host that keeps its events in memory", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  /** One start of the plugin: its outbox and executor over the database, a host whose memory starts empty. */
  const start = () => {
    const host = createFakeHost();
    const events = new EventEmitter<HostEvents>();
    const store = createSqliteSessionEventStore(database);
    const logger = createPluginLogger(host.api.logger);
    const outbox = createSessionOutbox({ store, runtime: host.api.runtime, events, logger: logger.forModule("dispatch") });
    const executor = createRunExecutor({ runtime: host.api.runtime, logger: logger.forModule("runs"), emitter: createPluginEmitter(), outbox });
    return { host, events, store, outbox, executor };
  };
  const restart = () => {
    database.close();
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
    return start();
  };
  const cutOff = runRecord({ status: "running", action: agentAction({ name: "Nightly" }), source: directSource() });

  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("store");
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
  });
  afterEach(() => {
    database.close();
    log.close();
    tmp.remove();
  });

  it("regression: an interrupted run's report handed to the host's memory was lost by a second stop; it is kept until a turn took it, once", async () => {
    const first = start();
    const summary = await first.executor.reportInterrupted(cutOff);
    expect(summary).toMatch(/^Hook Nightly \(interrupted\): /);
    const mainKey = first.host.api.runtime.sessions.mainKey;
    expect(first.host.systemEvents.map((e) => e.sessionKey)).toEqual([mainKey]);
    const handed = first.host.systemEvents[0]!.text;
    expect(first.store.count(mainKey)).toBe(1);
    first.outbox.close();

    // The host stops again before a main-session turn took the report: the next start hands it again, the same text.
    const second = restart();
    expect(await second.outbox.handPending("hook:wake")).toBe(1);
    expect(second.host.systemEvents.map((e) => e.text)).toEqual([handed]);
    // Posted again in that start (a crash had left its run "summary pending"): kept once, not handed a second time.
    await second.executor.repostSummary({ ...cutOff, status: "interrupted", summary });
    expect(second.host.systemEvents.map((e) => e.text)).toEqual([handed]);
    expect(second.store.count(mainKey)).toBe(1);

    // A main-session turn carried it: forgotten, and the start after hands nothing.
    second.events.emit("turn", { sessionKey: mainKey, input: `System: ${handed}` });
    await until(() => second.store.count(mainKey) === 0, "the report to be forgotten once a turn took it", { timeoutMs: 2000, intervalMs: 10 });
    second.outbox.close();
    const third = restart();
    expect(await third.outbox.handPending("hook:wake")).toBe(0);
    expect(third.host.systemEvents).toEqual([]);
    third.outbox.close();
  });

  it("a summary the store cannot keep is not marked posted (the run stays summary pending, retried)", async () => {
    const { host, executor, outbox } = start();
    database.close();
    await expect(executor.repostSummary({ ...cutOff, status: "interrupted", summary: "Hook Nightly (interrupted): x" })).rejects.toThrow();
    expect(host.systemEvents).toEqual([]);
    outbox.close();
    database = openPluginDatabase({ dir: tmp.dir, logger: log.logger });
  });
});
