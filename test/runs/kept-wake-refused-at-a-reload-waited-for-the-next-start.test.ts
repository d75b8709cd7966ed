/**
 * Regression (issue 32, inside OpenClaw): when OpenClaw reloads the plugin in place (a change under `plugins.*`), the
 * new instance's start hands the wakes it keeps to OpenClaw again, but OpenClaw refuses a reloaded instance's system
 * events and heartbeat requests until it has published it (`Plugin "inbound-webhooks" cannot route system events
 * during replacement preparation.`). The outbox logged "handed again" and `heartbeat request failed`, and left them
 * until the next start of the gateway: a run summary reposted at the reload, or a wake OpenClaw no longer held,
 * waited for a restart. What the host refuses is now asked again after a short delay until it takes it.
 */
import { EventEmitter } from "eventemitter3";
import type { HostEvents, HostRuntime } from "../../src/host-contract/host-api";
import { createSqliteSessionEventStore } from "../../src/store/session-event-store";
import { createSessionOutbox } from "../../src/runs/session-outbox";
import { wrapExternalContent } from "../../src/safety/wrap";
import { createFakeHost } from "../helpers/fake-host";
import { recordingLogger } from "../helpers/temp-dir";
import { useTempDatabase } from "../helpers/temp-database";
import { until } from "../helpers/until";

const PREPARING = 'Plugin "inbound-webhooks" cannot route system events during replacement preparation.';
const RETRY_MS = 20;
const MAIN = "agent:main:main";

describe("kept main-session events the host refuses for a moment (a reload in place)", () => {
  const t = useTempDatabase();
  let log: ReturnType<typeof recordingLogger>;
  afterEach(() => log?.close());

  /** An outbox over a fake host that refuses system events and heartbeats while `host.preparing` is true. */
  const open = (opts: { heartbeatsRefused?: boolean } = {}) => {
    const host = Object.assign(createFakeHost(), { preparing: true, asked: 0, eventsAtHeartbeat: [] as number[] });
    const real = host.api.runtime;
    const refuseWhilePreparing = () => {
      host.asked++;
      if (host.preparing) throw new Error(PREPARING);
    };
    const runtime: HostRuntime = {
      ...real,
      sessions: {
        ...real.sessions,
        enqueueSystemEvent: (sessionKey, text, meta) => {
          refuseWhilePreparing();
          return real.sessions.enqueueSystemEvent(sessionKey, text, meta);
        },
      },
      heartbeat: {
        requestNow: (req) => {
          if (opts.heartbeatsRefused !== false) refuseWhilePreparing();
          host.eventsAtHeartbeat.push(host.systemEvents.length);
          return real.heartbeat.requestNow(req);
        },
      },
    };
    const events = new EventEmitter<HostEvents>();
    const store = createSqliteSessionEventStore(t.database);
    log = recordingLogger("dispatch");
    const outbox = createSessionOutbox({ store, runtime, events, logger: log.logger, retryDelayMs: RETRY_MS, maxRetryDelayMs: 4 * RETRY_MS });
    return { host, events, store, outbox };
  };
  /** Stores a wake as a start before this one did (handed to a host that is gone). */
  const keptFromBefore = async (text: string) => {
    const beforeLog = recordingLogger("dispatch");
    const before = createSessionOutbox({
      store: createSqliteSessionEventStore(t.database),
      runtime: createFakeHost().api.runtime,
      events: new EventEmitter<HostEvents>(),
      logger: beforeLog.logger,
    });
    await before.put(MAIN, text, { source: "hook:wake", kind: "wake" });
    before.close();
    beforeLog.close();
  };
  const messages = (level: string) => log.lines.filter((l) => l.level === level).map((l) => l.message);

  it("regression: a kept wake the reloaded instance's start could not hand waited for the next start; it is handed, with its heartbeat, once the host takes them", async () => {
    const text = wrapExternalContent("Backup finished", { hook: "wake" });
    await keptFromBefore(text);
    const { host, outbox } = open();
    expect(await outbox.handPending("hook:wake")).toBe(1);
    expect([host.systemEvents, host.heartbeats]).toEqual([[], []]);
    // Said once, at info: a reload's moment, not a failure.
    expect(messages("info").filter((m) => m.includes("the host refused it for now"))).toHaveLength(1);
    expect([messages("warn"), messages("error")]).toEqual([[], []]);

    host.preparing = false; // OpenClaw published the new instance
    await until(() => host.heartbeats.length > 0, "the kept wake and its heartbeat to be asked again", { timeoutMs: 2000, intervalMs: 5 });
    expect(host.systemEvents.map((e) => e.text)).toEqual([text]);
    expect(host.heartbeats).toEqual([{ reason: "hook:wake" }]);
    expect(messages("info")).toContain("kept main-session events the host had refused handed to it now");
    // Nothing more is asked once the host took it.
    const asked = host.asked;
    await new Promise((r) => setTimeout(r, 5 * RETRY_MS));
    expect(host.asked).toBe(asked);
    outbox.close();
  });

  it("a host that refuses the kept events but not the heartbeat gets the heartbeat after the events, not before (it would find none)", async () => {
    const text = wrapExternalContent("Build green", { hook: "wake" });
    await keptFromBefore(text);
    const { host, outbox } = open({ heartbeatsRefused: false });
    await outbox.handPending("hook:wake");
    expect([host.systemEvents, host.heartbeats]).toEqual([[], []]);
    host.preparing = false;
    await until(() => host.heartbeats.length > 0, "the heartbeat, once the kept wake was handed", { timeoutMs: 2000, intervalMs: 5 });
    expect([host.systemEvents.map((e) => e.text), host.eventsAtHeartbeat]).toEqual([[text], [1]]);
    outbox.close();
  });

  it("a refused event a turn carried meanwhile is not handed again; the refused heartbeat still is", async () => {
    const text = wrapExternalContent("Deploy done", { hook: "wake" });
    await keptFromBefore(text);
    const { host, events, store, outbox } = open();
    await outbox.handPending("hook:wake");
    // OpenClaw still held it from before the reload, and a turn took it.
    events.emit("turn", { sessionKey: MAIN, input: text });
    await until(() => store.count(MAIN) === 0, "the taken wake to be forgotten", { timeoutMs: 2000, intervalMs: 5 });
    host.preparing = false;
    await until(() => host.heartbeats.length > 0, "the heartbeat to be asked again", { timeoutMs: 2000, intervalMs: 5 });
    expect(host.systemEvents).toEqual([]);
    outbox.close();
  });

  it("a wake put while the host refuses is handed once it takes it", async () => {
    const { host, outbox } = open();
    await outbox.put(MAIN, "plain wake", { kind: "wake" });
    expect(host.systemEvents).toEqual([]);
    host.preparing = false;
    await until(() => host.systemEvents.length > 0, "the refused wake to be asked again", { timeoutMs: 2000, intervalMs: 5 });
    expect(host.systemEvents.map((e) => e.text)).toEqual(["plain wake"]);
    expect(host.heartbeats).toEqual([]);
    outbox.close();
  });

  it("a host that keeps refusing is asked at growing intervals, said at info then once at warn; close() stops asking (the next start hands it)", async () => {
    await keptFromBefore("still kept");
    const { host, store, outbox } = open();
    await outbox.handPending("hook:wake");
    await until(() => host.asked >= 8, "the host to be asked again several times", { timeoutMs: 5000, intervalMs: 5 });
    expect(messages("info").filter((m) => m.includes("the host refused it for now"))).toHaveLength(1);
    expect(messages("warn").filter((m) => m.includes("the host refused it for now"))).toHaveLength(1);
    expect(messages("warn")[0]).toContain(`up to every ${4 * RETRY_MS} ms`);
    outbox.close();
    const asked = host.asked;
    host.preparing = false;
    await new Promise((r) => setTimeout(r, 10 * RETRY_MS));
    expect([host.asked, host.systemEvents]).toEqual([asked, []]);
    expect(store.count(MAIN)).toBe(1);
  });
});
