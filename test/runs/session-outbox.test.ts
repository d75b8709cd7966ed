/**
 * The main-session outbox on a host that keeps its events in memory (OpenClaw; issue 32: a wake answered 200 just
 * before a stop never reached the model): kept in the plugin's store until a turn's input carried it, and handed
 * to the host again at the next start.
 */
import { EventEmitter } from "eventemitter3";
import type { HostEvents } from "../../src/host-contract/host-api";
import { createSqliteSessionEventStore } from "../../src/store/session-event-store";
import { createSessionOutbox, eventSignature } from "../../src/runs/session-outbox";
import { wrapExternalContent } from "../../src/safety/wrap";
import { createFakeHost } from "../helpers/fake-host";
import { createPluginLogger } from "../../src/logging/logger";
import { useTempDatabase } from "../helpers/temp-database";
import { until } from "../helpers/until";

describe("the main-session outbox (session-outbox.ts)", () => {
  const t = useTempDatabase();
  const open = () => {
    const host = createFakeHost();
    const events = new EventEmitter<HostEvents>();
    const store = createSqliteSessionEventStore(t.database);
    const outbox = createSessionOutbox({ store, runtime: host.api.runtime, events, logger: createPluginLogger(host.api.logger).forModule("dispatch") });
    return { host, events, store, outbox };
  };

  it("regression: a wake answered 200 before a stop was lost with the host's memory; it is kept and handed to the host again at the next start", async () => {
    const first = open();
    const text = wrapExternalContent("Backup finished", { hook: "wake" });
    await first.outbox.put("agent:main:main", text, { source: "hook:wake", kind: "wake" });
    expect(first.host.systemEvents.map((e) => e.text)).toEqual([text]);
    first.outbox.close();
    // The host stops before a turn took it (OpenClaw: its events were in memory); the plugin starts again.
    t.reopen();
    const next = open();
    expect(await next.outbox.handPending("hook:wake")).toBe(1);
    expect(next.host.systemEvents.map((e) => e.text)).toEqual([text]);
    expect(next.host.systemEvents[0]!.meta).toMatchObject({ kind: "wake", dedupeKey: expect.stringMatching(/^wake:/) });
    expect(next.host.heartbeats).toEqual([{ reason: "hook:wake" }]);
  });

  it("forgets an event once a turn of its session carried it (by its wrapper's id), and only then", async () => {
    const { events, store, outbox } = open();
    const taken = wrapExternalContent("first", { hook: "wake" });
    const other = wrapExternalContent("second", { hook: "wake" });
    await outbox.put("agent:main:main", taken, {});
    await outbox.put("agent:main:main", other, {});
    // Another session's turn, and a turn without the event, forget nothing.
    events.emit("turn", { sessionKey: "agent:main:hook:x", input: taken });
    events.emit("turn", { sessionKey: "agent:main:main", input: "Heartbeat. Nothing new." });
    // OpenClaw may prefix and reflow the event: its wrapper's id is still in the prompt.
    events.emit("turn", { sessionKey: "agent:main:main", input: `System: [12:00] ${taken.replaceAll("\n", " ")}` });
    await until(() => store.count("agent:main:main") === 1, "the taken event to be forgotten", { timeoutMs: 2000, intervalMs: 10 });
    expect(store.pending({ sessionKey: "agent:main:main" }).map((e) => e.text)).toEqual([other]);
    expect(await outbox.handPending("hook:wake")).toBe(1);
  });

  it("an unwrapped text (allowUnsafeExternalContent) is found by its whole text", () => {
    expect(eventSignature("  Deploy done  ")).toBe("Deploy done");
    expect(eventSignature(wrapExternalContent("x", { hook: "wake" }, { idGen: () => "00000000000000ab" }))).toBe("00000000000000ab");
  });

  it("a wake the store cannot keep is refused before the host sees it (the 503 path), nothing handed", async () => {
    const { host, outbox } = open();
    t.database.close();
    await expect(outbox.put("agent:main:main", "t", {})).rejects.toThrow();
    expect(host.systemEvents).toEqual([]);
  });
});
