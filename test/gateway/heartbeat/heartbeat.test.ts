import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import { createHeartbeat } from "../../../src/gateway/heartbeat/heartbeat";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";
import { createAgentTurns } from "../../../src/gateway/runners/agent-turns";
import { createChannelRegistry } from "../../../src/gateway/channels/channel-registry";
import type { AgentRunner } from "../../../src/gateway/runners/agent-runner";
import type { HostEvents, HostLogger, LastRoute } from "../../../src/host-contract/host-api";

const quiet: HostLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

/** Manual timers: `fire()` runs the due callbacks (no real waiting). */
function manualTimers() {
  const timers: Array<{ fn: () => void; ms: number; t: NodeJS.Timeout }> = [];
  return {
    timers,
    setTimer: (fn: () => void, ms: number) => {
      const t = { fn, ms, t: {} as NodeJS.Timeout };
      timers.push(t);
      return t.t;
    },
    clearTimer: (h: NodeJS.Timeout) => {
      const i = timers.findIndex((x) => x.t === h);
      if (i >= 0) timers.splice(i, 1);
    },
    /** Runs and removes every timer of `ms`; returns how many ran. */
    fire(ms: number) {
      const due = timers.filter((x) => x.ms === ms);
      for (const d of due) timers.splice(timers.indexOf(d), 1);
      due.forEach((d) => d.fn());
      return due.length;
    },
  };
}

function setup(opts: { reply?: (msg: string) => string; fail?: boolean; everyMs?: number; lastRoute?: LastRoute; dir?: string; gate?: Promise<void> } = {}) {
  const dir = opts.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "gw-hb-"));
  const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
  const journal = createJournal({ file: path.join(dir, "journal.jsonl") });
  const messages: string[] = [];
  const runner: AgentRunner = {
    kind: "script",
    run: async (t) => {
      messages.push(t.message);
      await opts.gate;
      return opts.fail ? { status: "error", error: "down" } : { status: "ok", reply: (opts.reply ?? ((m) => `seen ${m.length}`))(t.message) };
    },
  };
  const turns = createAgentTurns({ runner, sessions, journal, logger: quiet, mainKey: "main" });
  const channels = createChannelRegistry({ journal, sessions, mainKey: "main", seedLastRoute: opts.lastRoute, logger: quiet });
  const events = new EventEmitter<HostEvents>();
  const seen: string[] = [];
  events.on("heartbeat", (e) => seen.push(`${e.phase}:${e.reason}`));
  const timers = manualTimers();
  const hb = createHeartbeat({
    everyMs: opts.everyMs ?? 0,
    mainKey: "main",
    sessions,
    turns,
    channels,
    journal,
    events,
    logger: quiet,
    turnTimeoutMs: 5000,
    setTimer: timers.setTimer,
    clearTimer: timers.clearTimer,
  });
  const entries = () =>
    fs
      .readFileSync(journal.file, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  const finished = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => seen.filter((s) => s.startsWith("finished")).length >= n && (events.off("heartbeat", check), resolve());
      events.on("heartbeat", check);
      check();
    });
  return { dir, sessions, journal, hb, timers, messages, entries, seen, finished };
}

describe("heartbeat", () => {
  it("coalesces requests into one heartbeat that drains all pending events into one turn", async () => {
    const t = setup({ lastRoute: { channel: "bot_chat", to: "9" } });
    t.hb.start();
    t.sessions.enqueue("main", "event A");
    t.sessions.enqueue("main", "event B");
    t.hb.requestNow("hook:wake");
    t.hb.requestNow("hook:agent");
    expect(t.timers.timers.map((x) => x.ms)).toEqual([250]);
    const done = t.finished(1);
    expect(t.timers.fire(250)).toBe(1);
    await done;
    expect(t.messages).toHaveLength(1);
    expect(t.messages[0]).toContain("] event A\n");
    expect(t.messages[0]).toContain("] event B\n");
    expect(t.sessions.get("main").pending).toEqual([]);
    expect(t.seen).toEqual(["started:hook:wake", "finished:hook:wake"]);
    const types = t.entries().map((e) => e.type);
    expect(types).toEqual(["heartbeat", "agent_turn", "system_events_consumed", "delivery"]);
    expect(t.entries()[0]).toMatchObject({ reason: "hook:wake", pending: 2 });
    expect(t.entries()[3]).toMatchObject({ channel: "bot_chat", to: "9", text: `seen ${t.messages[0]!.length}` });
  });

  it("does not deliver a HEARTBEAT_OK-only reply", async () => {
    const t = setup({ reply: () => "**HEARTBEAT_OK**", lastRoute: { channel: "bot_chat", to: "9" } });
    t.sessions.enqueue("main", "x");
    await t.hb.runNow("test");
    expect(t.entries().map((e) => e.type)).toEqual(["heartbeat", "agent_turn", "system_events_consumed"]);
  });

  it("runs no turn without pending events", async () => {
    const t = setup();
    await t.hb.runNow("interval");
    expect(t.messages).toEqual([]);
    expect(t.entries()).toEqual([{ ts: expect.any(String), type: "heartbeat", reason: "interval", pending: 0 }]);
  });

  it("keeps the events when the turn fails, retries after a backoff, and reports the failure on the main session", async () => {
    const t = setup({ fail: true });
    t.sessions.enqueue("main", "keep me");
    const beat = t.hb.runNow("test");
    for (let i = 0; t.timers.timers.length === 0 && i < 1000; i++) await new Promise((r) => setImmediate(r));
    expect(t.timers.fire(1000)).toBe(1);
    await beat;
    const pending = t.sessions.get("main").pending;
    expect(pending.map((e) => e.text)).toEqual([
      "keep me",
      "Heartbeat report: the agent runner failed 2 heartbeat turns (last: error, down); the events were sent again in smaller batches after a pause. 1 event failed even on its own and stays pending.",
    ]);
    expect(pending[1]!.meta).toEqual({ source: "heartbeat", kind: "heartbeat-report" });
    expect(t.entries().map((e) => e.type)).toEqual([
      "heartbeat",
      "agent_turn",
      "heartbeat_batch_failed",
      "agent_turn",
      "heartbeat_batch_failed",
      "system_event",
    ]);
  });

  it("does not consume events enqueued while the turn runs", async () => {
    let release!: () => void;
    const t = setup({ gate: new Promise<void>((r) => (release = r)) });
    t.sessions.enqueue("main", "first");
    const beat = t.hb.runNow("test");
    for (let i = 0; t.messages.length === 0 && i < 1000; i++) await new Promise((r) => setImmediate(r));
    t.sessions.enqueue("main", "late");
    release();
    await beat;
    expect(t.messages[0]).toContain("first");
    expect(t.messages[0]).not.toContain("late");
    expect(t.sessions.get("main").pending.map((e) => e.text)).toEqual(["late"]);
  });

  it("schedules periodic heartbeats every everyMs, and none when 0", async () => {
    const t = setup({ everyMs: 60_000 });
    t.hb.start();
    expect(t.timers.timers.map((x) => x.ms)).toEqual([60_000]);
    const done = t.finished(1);
    t.timers.fire(60_000);
    await done;
    expect(t.entries()[0]).toMatchObject({ type: "heartbeat", reason: "interval" });
    expect(t.timers.timers.map((x) => x.ms)).toEqual([60_000]);
    await t.hb.stop();
    expect(t.timers.timers).toEqual([]);

    const off = setup({ everyMs: 0 });
    off.hb.start();
    expect(off.timers.timers).toEqual([]);
  });

  it("runs a heartbeat requested before a restart on the next start", async () => {
    const first = setup();
    first.sessions.enqueue("main", "pending across restart");
    first.hb.requestNow("hook:wake");
    await first.hb.stop();
    expect(first.messages).toEqual([]);

    const second = setup({ dir: first.dir });
    second.hb.start();
    const done = second.finished(1);
    expect(second.timers.fire(250)).toBe(1);
    await done;
    expect(second.messages[0]).toContain("pending across restart");
    expect(second.sessions.get("main").heartbeatRequested).toBeUndefined();
  });
});
