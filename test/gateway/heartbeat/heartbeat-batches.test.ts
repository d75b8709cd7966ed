/**
 * Bounded heartbeat prompts (SPEC §7). Regression: the heartbeat sent every
 * pending event in one prompt — 150 wakes of 2 KB made a 382 KB prompt the
 * model rejected, the events stayed pending and every later heartbeat failed
 * the same way. Real sessions, journal and agent turns; a scripted runner;
 * manual timers (backoff waits are fired by the test, never slept).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import { createHeartbeat } from "../../../src/gateway/heartbeat/heartbeat";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";
import { createAgentTurns } from "../../../src/gateway/runners/agent-turns";
import { createChannelRegistry } from "../../../src/gateway/channels/channel-registry";
import type { AgentRunner, RunnerTurn } from "../../../src/gateway/runners/agent-runner";
import type { HostEvents, HostLogger } from "../../../src/host-contract/host-api";

interface Call {
  message: string;
  /** Characters the runner was sent: history plus message. */
  total: number;
  ok: boolean;
}

function setup(opts: { reject?: (turn: RunnerTurn, total: number) => boolean; maxPromptChars?: number }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-hb-batches-"));
  const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
  const journal = createJournal({ file: path.join(dir, "journal.jsonl") });
  const warnings: Array<{ message: string; meta?: Record<string, unknown> }> = [];
  const logger: HostLogger = { debug: () => {}, info: () => {}, warn: (message, meta) => void warnings.push({ message, meta }), error: () => {} };
  const calls: Call[] = [];
  const runner: AgentRunner = {
    kind: "script",
    run: async (turn) => {
      const total = turn.history.reduce((n, m) => n + m.content.length, turn.message.length);
      const rejected = opts.reject?.(turn, total) ?? false;
      calls.push({ message: turn.message, total, ok: !rejected });
      return rejected ? { status: "error", error: `HTTP 400: context_length_exceeded (${total} chars)` } : { status: "ok", reply: "HEARTBEAT_OK" };
    },
  };
  const turns = createAgentTurns({ runner, sessions, journal, logger, mainKey: "main" });
  const channels = createChannelRegistry({ journal, sessions, mainKey: "main", logger });
  const timers: Array<{ fn: () => void; ms: number; t: NodeJS.Timeout }> = [];
  const events = new EventEmitter<HostEvents>();
  const hb = createHeartbeat({
    everyMs: 0,
    mainKey: "main",
    sessions,
    turns,
    channels,
    journal,
    events,
    logger,
    turnTimeoutMs: 5000,
    maxPromptChars: opts.maxPromptChars,
    setTimer: (fn, ms) => {
      const t = { fn, ms, t: {} as NodeJS.Timeout };
      timers.push(t);
      return t.t;
    },
    clearTimer: (h) => {
      const i = timers.findIndex((x) => x.t === h);
      if (i >= 0) timers.splice(i, 1);
    },
  });
  const entries = () =>
    fs
      .readFileSync(journal.file, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  /** Waits for `work`, firing each backoff wait (at most 30 s; a scheduled retry heartbeat is 60 s or more) as soon as it is set; returns the waits fired. */
  const drive = async (work: Promise<unknown>): Promise<number[]> => {
    let done = false;
    const fired: number[] = [];
    const running = work.then(() => (done = true));
    for (let i = 0; !done && i < 100_000; i++) {
      const due = timers.find((x) => x.ms <= 30_000);
      if (due) {
        timers.splice(timers.indexOf(due), 1);
        fired.push(due.ms);
        due.fn();
      }
      await new Promise((r) => setImmediate(r));
    }
    await running;
    return fired;
  };
  const beat = (reason = "test") => drive(hb.runNow(reason));
  const nextFinished = () =>
    new Promise<void>((resolve) => {
      const on = (e: { phase: string }) => {
        if (e.phase !== "finished") return;
        events.off("heartbeat", on);
        resolve();
      };
      events.on("heartbeat", on);
    });
  const wake = (text: string) => sessions.enqueue("main", text, { source: "hook:wake" });
  return { sessions, hb, calls, entries, warnings, beat, drive, nextFinished, wake, timers };
}

const twoKb = (i: number) => `event ${String(i).padStart(3, "0")} ${"x".repeat(2040)}`;

describe("heartbeat batches under agents.defaults.heartbeat.maxPromptChars", () => {
  it("150 events of 2 KB no longer go out as one 300 KB prompt: every prompt (history included) fits 100000 characters and all drain in order", async () => {
    const t = setup({});
    for (let i = 0; i < 150; i++) t.wake(twoKb(i));
    await t.beat();
    expect(t.sessions.get("main").pending).toEqual([]);
    expect(t.calls.length).toBeGreaterThanOrEqual(4);
    for (const c of t.calls) expect(c.total).toBeLessThanOrEqual(100_000);
    const seen = t.calls.flatMap((c) => [...c.message.matchAll(/event (\d{3}) /g)].map((m) => Number(m[1])));
    expect(seen).toEqual(Array.from({ length: 150 }, (_, i) => i));
    expect(
      t
        .entries()
        .filter((e) => e.type === "system_events_consumed")
        .reduce((n, e) => n + (e.count as number), 0),
    ).toBe(150);
  });

  it("a batch the runner rejects is halved and retried after a backoff; everything drains and the failure is reported", async () => {
    const t = setup({ reject: (_turn, total) => total > 60_000 });
    for (let i = 0; i < 150; i++) t.wake(twoKb(i));
    const waits = await t.beat();
    expect(waits).toEqual([1000]);
    expect(t.calls[0]).toMatchObject({ ok: false });
    expect(t.calls[0]!.total).toBeGreaterThan(90_000);
    expect(t.calls[1]).toMatchObject({ ok: true });
    expect(t.calls[1]!.total).toBeLessThanOrEqual(t.calls[0]!.total / 2);
    const pending = t.sessions.get("main").pending;
    expect(pending).toHaveLength(1);
    expect(pending[0]!.meta?.source).toBe("heartbeat");
    expect(pending[0]!.text).toMatch(
      /^Heartbeat report: the agent runner failed 1 heartbeat turn \(last: error, HTTP 400: context_length_exceeded \(\d+ chars\)\); the events were sent again in smaller batches after a pause\. 150 events went through in \d+ turns\.$/,
    );
    const failed = t.entries().find((e) => e.type === "heartbeat_batch_failed");
    expect(failed).toMatchObject({ reason: "test", status: "error", nextBudget: Math.floor(t.calls[0]!.total / 2) });
    expect(t.warnings.map((w) => w.message)).toContain("heartbeat turn failed; splitting the batch and retrying with backoff");
  });

  it("the conversation history counts toward the budget: older messages are left out of the call, never the events", async () => {
    const t = setup({ maxPromptChars: 20_000 });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 8; i++) t.wake(twoKb(round * 8 + i));
      await t.beat();
    }
    expect(t.sessions.get("main").history.length).toBeGreaterThan(4);
    for (const c of t.calls) expect(c.total).toBeLessThanOrEqual(20_000);
    expect(t.sessions.get("main").pending).toEqual([]);
  });

  it("a single event longer than the budget is shortened to fit: its start and its end are kept, with a note of what was left out", async () => {
    const t = setup({ maxPromptChars: 10_000 });
    const text = `START ${"y".repeat(50_000)} <<<END_EXTERNAL_UNTRUSTED_CONTENT id="abc">>>`;
    t.wake(text);
    await t.beat();
    expect(t.calls).toHaveLength(1);
    const sent = t.calls[0]!.message;
    expect(sent.length).toBeLessThanOrEqual(10_000);
    expect(sent).toContain("START yyy");
    expect(sent).toContain('<<<END_EXTERNAL_UNTRUSTED_CONTENT id="abc">>>');
    expect(sent).toMatch(/\[… \d+ characters left out: this event is longer than one heartbeat prompt may be …\]/);
    expect(t.sessions.get("main").pending).toEqual([]);
  });

  it("with the runner down nothing is lost: each event is tried alone, all stay pending, one report, and another heartbeat is scheduled", async () => {
    const t = setup({ reject: () => true });
    t.hb.start();
    for (const text of ["a", "b", "c"]) t.wake(text);
    await t.beat();
    expect(t.sessions.get("main").pending.map((e) => e.text.slice(0, 17))).toEqual(["a", "b", "c", "Heartbeat report:"]);
    expect(t.timers.map((x) => x.ms)).toEqual([60_000]);
    expect(t.sessions.get("main").heartbeatRequested).toBe("retry");
    // The scheduled heartbeat fails again: still one report, nothing consumed, the retry backs off.
    const finished = t.nextFinished();
    t.timers.splice(0)[0]!.fn();
    await t.drive(finished);
    expect(t.sessions.get("main").pending.filter((e) => e.meta?.source === "heartbeat")).toHaveLength(1);
    expect(t.sessions.get("main").pending).toHaveLength(4);
    expect(t.timers.map((x) => x.ms)).toEqual([120_000]);
    await t.hb.stop();
  });

  it("a clean heartbeat after failures cancels the scheduled retry and resets its backoff", async () => {
    let down = true;
    const t = setup({ reject: () => down });
    t.hb.start();
    t.wake("a");
    await t.beat();
    expect(t.timers.map((x) => x.ms)).toEqual([60_000]);
    down = false;
    t.wake("b");
    await t.beat("recovered");
    expect(t.sessions.get("main").pending).toEqual([]);
    expect(t.timers).toEqual([]);
    await t.hb.stop();
  });

  it("an event the runner refuses alone while others go through is set aside after three heartbeats; the queue never wedges", async () => {
    const t = setup({ reject: (turn) => turn.message.includes("POISON") });
    for (const text of ["alpha-event", "POISON", "omega-event"]) t.wake(text);
    await t.beat();
    expect(t.sessions.get("main").pending.map((e) => e.text.slice(0, 6))).toEqual(["POISON", "Heartb"]);
    await t.beat();
    await t.beat();
    const pending = t.sessions.get("main").pending;
    expect(pending.some((e) => e.text === "POISON")).toBe(false);
    const setAside = t.entries().filter((e) => e.type === "system_event_set_aside");
    expect(setAside).toEqual([expect.objectContaining({ sessionKey: "main", chars: 6, source: "hook:wake" })]);
    expect(pending.at(-1)!.text).toContain(
      `1 event was set aside because the runner kept refusing it alone while other events went through; the text is in the journal (ids: ${String(setAside[0]!.id)}).`,
    );
    expect(t.calls.filter((c) => c.ok && /alpha-event|omega-event/.test(c.message))).toHaveLength(2);
  });

  it("stop() during a backoff ends the heartbeat at once; the events stay pending", async () => {
    const t = setup({ reject: () => true });
    t.hb.start();
    for (let i = 0; i < 5; i++) t.wake(`e${i}`);
    const running = t.hb.runNow("test");
    for (let i = 0; t.timers.length === 0 && i < 1000; i++) await new Promise((r) => setImmediate(r));
    expect(t.timers.map((x) => x.ms)).toEqual([1000]);
    await t.hb.stop();
    await running;
    expect(t.calls).toHaveLength(1);
    expect(t.sessions.get("main").pending).toHaveLength(5);
    expect(t.timers).toEqual([]);
  });
});
