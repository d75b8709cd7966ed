import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createAgentTurns } from "../../../src/gateway/runners/agent-turns";
import { createEchoRunner } from "../../../src/gateway/runners/echo-runner";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";
import type { AgentRunner, RunnerTurn } from "../../../src/gateway/runners/agent-runner";
import type { HostLogger } from "../../../src/host-contract/host-api";

const quiet: HostLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

function setup(runner: AgentRunner, defaultModel?: string) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-turns-"));
  const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
  const journal = createJournal({ file: path.join(dir, "journal.jsonl") });
  const turns = createAgentTurns({ runner, sessions, journal, logger: quiet, defaultModel, mainKey: "main", now: () => 1000 });
  const entries = () =>
    fs
      .readFileSync(journal.file, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { turns, sessions, entries };
}

const never = new AbortController().signal;

describe("agent turns", () => {
  it("echoes, journals the turn with model and thinking, and extends the history", async () => {
    const { turns, sessions, entries } = setup(createEchoRunner(), "echo/default");
    const r = await turns.runTurn({ sessionKey: "hook:a", message: "hi", thinking: "low", timeoutMs: 1000, signal: never });
    expect(r).toEqual({ status: "ok", reply: "echo: hi" });
    expect(entries()).toEqual([
      {
        ts: expect.any(String),
        type: "agent_turn",
        sessionKey: "hook:a",
        model: "echo/default",
        thinking: "low",
        status: "ok",
        reply: "echo: hi",
        durationMs: 0,
      },
    ]);
    expect(sessions.get("hook:a").history).toEqual([
      { role: "user", content: "hi" },
      { role: "assistant", content: "echo: hi" },
    ]);
  });

  it("hands the runner the session's prior turns", async () => {
    const seen: RunnerTurn[] = [];
    const runner: AgentRunner = { kind: "spy", run: async (t) => (seen.push({ ...t, history: [...t.history] }), { status: "ok", reply: `r${seen.length}` }) };
    const { turns } = setup(runner);
    await turns.runTurn({ sessionKey: "k", message: "m1", timeoutMs: 1000, signal: never });
    await turns.runTurn({ sessionKey: "k", message: "m2", model: "openai/gpt", timeoutMs: 1000, signal: never });
    expect(seen[1]!.history).toEqual([
      { role: "user", content: "m1" },
      { role: "assistant", content: "r1" },
    ]);
    expect(seen[1]!.model).toBe("openai/gpt");
  });

  it("runs turns of one session key one at a time, in arrival order", async () => {
    const order: string[] = [];
    const runner: AgentRunner = {
      kind: "slow-first",
      run: async (t) => {
        order.push(`start ${t.message}`);
        if (t.message === "1") await new Promise((r) => setTimeout(r, 30));
        order.push(`end ${t.message}`);
        return { status: "ok", reply: t.message };
      },
    };
    const { turns } = setup(runner);
    await Promise.all([
      turns.runTurn({ sessionKey: "k", message: "1", timeoutMs: 1000, signal: never }),
      turns.runTurn({ sessionKey: "k", message: "2", timeoutMs: 1000, signal: never }),
    ]);
    expect(order).toEqual(["start 1", "end 1", "start 2", "end 2"]);
  });

  it("reports timeout when the bound passes, and the runner sees its signal aborted", async () => {
    let aborted = false;
    const runner: AgentRunner = {
      kind: "hang",
      run: (t) =>
        new Promise((_resolve, reject) => {
          t.signal.addEventListener("abort", () => {
            aborted = true;
            reject(t.signal.reason);
          });
        }),
    };
    const { turns, sessions, entries } = setup(runner);
    const r = await turns.runTurn({ sessionKey: "k", message: "m", timeoutMs: 20, signal: never });
    expect(r).toEqual({ status: "timeout", error: "timed out after 20 ms" });
    expect(aborted).toBe(true);
    expect(sessions.get("k").history).toEqual([]);
    expect(entries()[0]).toMatchObject({ type: "agent_turn", status: "timeout", error: "timed out after 20 ms" });
  });

  it("honours the caller's abort signal (echo runner with delayMs)", async () => {
    const echo = createEchoRunner({ delayMs: 60_000 });
    let started!: () => void;
    const running = new Promise<void>((r) => (started = r));
    const { turns } = setup({ kind: "echo", run: (t) => (started(), echo.run(t)) });
    const ctl = new AbortController();
    const p = turns.runTurn({ sessionKey: "k", message: "m", timeoutMs: 120_000, signal: ctl.signal });
    await running;
    ctl.abort();
    await expect(p).resolves.toEqual({ status: "timeout", error: "the run was aborted" });
  });

  it("turns a runner exception into status error with its message", async () => {
    const { turns } = setup({ kind: "boom", run: async () => Promise.reject(new Error("model exploded")) });
    await expect(turns.runTurn({ sessionKey: "k", message: "m", timeoutMs: 1000, signal: never })).resolves.toEqual({
      status: "error",
      error: "model exploded",
    });
  });

  it("prefixes a non-main session's pending system events to its next turn and consumes them", async () => {
    const { turns, sessions, entries } = setup(createEchoRunner());
    sessions.enqueue("hook:s", "note one");
    const r = await turns.runTurn({ sessionKey: "hook:s", message: "go", timeoutMs: 1000, signal: never });
    expect(r.reply).toBe("echo: System events:\n- note one\n\ngo");
    expect(sessions.get("hook:s").pending).toEqual([]);
    expect(entries()[0]).toMatchObject({ type: "system_events_consumed", sessionKey: "hook:s", count: 1 });
  });
});
