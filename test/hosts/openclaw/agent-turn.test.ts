import { createSubagentTurns, lastAssistantText, openClawSessionKey, splitModelRef } from "../../../src/hosts/openclaw/agent-turn";
import type { OpenClawRuntime, OpenClawWaitResult } from "../../../src/hosts/openclaw/openclaw-api";
import { createServiceScope } from "../../../src/hosts/openclaw/service-scope";

/** A stand-in for OpenClaw's subagent runtime: records calls, answers waits from a script. */
function fakeRuntime(waits: OpenClawWaitResult[], messages: unknown[] = []) {
  const calls: { run: unknown[]; wait: unknown[]; read: unknown[] } = { run: [], wait: [], read: [] };
  const runtime = {
    system: { enqueueSystemEvent: () => true, requestHeartbeat: () => undefined },
    subagent: {
      run: async (p: unknown) => (calls.run.push(p), { runId: "oc-run-1", sessionKey: "agent:main:hook:x" }),
      waitForRun: async (p: unknown) => (calls.wait.push(p), waits.shift() ?? { status: "ok" as const }),
      getSessionMessages: async (p: unknown) => (calls.read.push(p), { messages }),
    },
  } satisfies OpenClawRuntime;
  return { runtime, calls };
}

const turn = (over: Partial<Parameters<ReturnType<typeof createSubagentTurns>["runTurn"]>[0]> = {}) => ({ sessionKey: "hook:x", message: "m", timeoutMs: 60_000, signal: new AbortController().signal, ...over });

describe("agent turns through OpenClaw's subagent runtime", () => {
  it("maps the session key to OpenClaw's agent form and a model ref to provider + model", () => {
    expect(openClawSessionKey("main", "hook:github:o/r#1")).toBe("agent:main:hook:github:o/r#1");
    expect(openClawSessionKey("main", "agent:ops:hook:x")).toBe("agent:ops:hook:x");
    expect(splitModelRef("openai/gpt-x")).toEqual({ provider: "openai", model: "gpt-x" });
  });

  it("runs, waits past a pending observation, and answers the newest assistant text", async () => {
    const { runtime, calls } = fakeRuntime([{ status: "pending" }, { status: "ok", endedAt: 1 }], [
      { role: "user", content: "m" },
      { role: "assistant", content: [{ type: "text", text: "the " }, { type: "text", text: "reply" }] },
    ]);
    const result = await createSubagentTurns(runtime, "main", createServiceScope(), "fake/fake-1").runTurn(turn({ model: "other/m2" }));
    expect(result).toEqual({ status: "ok", reply: "the reply" });
    expect(calls.run).toEqual([{ sessionKey: "agent:main:hook:x", message: "m", deliver: false, provider: "other", model: "m2" }]);
    expect(calls.wait).toHaveLength(2);
    expect(calls.read).toEqual([{ sessionKey: "agent:main:hook:x", limit: 20 }]);
  });

  it("passes no override when the run names the agent's own model", async () => {
    const { runtime, calls } = fakeRuntime([{ status: "ok", endedAt: 1 }]);
    await createSubagentTurns(runtime, "main", createServiceScope(), "fake/fake-1").runTurn(turn({ model: "fake/fake-1" }));
    expect(calls.run[0]).toEqual({ sessionKey: "agent:main:hook:x", message: "m", deliver: false });
  });

  it("reports OpenClaw's error, its terminal timeout, and a refused start", async () => {
    const error = fakeRuntime([{ status: "error", error: "model exploded" }]);
    expect(await createSubagentTurns(error.runtime, "main", createServiceScope()).runTurn(turn())).toEqual({ status: "error", error: "model exploded" });
    const timeout = fakeRuntime([{ status: "timeout", endedAt: 5, error: "agent timeout" }]);
    expect(await createSubagentTurns(timeout.runtime, "main", createServiceScope()).runTurn(turn())).toEqual({ status: "timeout", error: "agent timeout" });
    const { runtime } = fakeRuntime([]);
    runtime.subagent.run = async () => {
      throw new Error("missing scope: operator.write");
    };
    expect(await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).toEqual({ status: "error", error: "OpenClaw refused the run: missing scope: operator.write" });
  });

  it("stops waiting when the run's signal aborts", async () => {
    const { runtime } = fakeRuntime([]);
    runtime.subagent.waitForRun = () => new Promise(() => undefined);
    const abort = new AbortController();
    const pending = createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn({ signal: abort.signal }));
    abort.abort();
    expect((await pending).status).toBe("timeout");
  });

  it("a run whose service OpenClaw restarted (config reload) joins its OpenClaw run instead of starting another", async () => {
    const { runtime, calls } = fakeRuntime([], [{ role: "assistant", content: "joined reply" }]);
    runtime.subagent.waitForRun = () => new Promise(() => undefined);
    const stopping = new AbortController();
    const before = createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn({ runId: "run-reload-1", signal: stopping.signal }));
    await new Promise((r) => setImmediate(r));
    stopping.abort();
    await before;
    // The next activation (another instance, as after OpenClaw's reload) sees the turn going on and joins it.
    const after = createSubagentTurns(runtime, "main", createServiceScope());
    expect(after.stillRunning("run-reload-1")).toBe(true);
    runtime.subagent.waitForRun = async (p: unknown) => (calls.wait.push(p), { status: "ok" as const, endedAt: 2 });
    expect(await after.runTurn(turn({ runId: "run-reload-1" }))).toEqual({ status: "ok", reply: "joined reply" });
    expect(calls.run).toHaveLength(1);
    expect(calls.wait).toEqual([{ runId: "oc-run-1", timeoutMs: expect.any(Number) }]);
    expect(after.stillRunning("run-reload-1")).toBe(false);
    expect(after.stillRunning("never-started")).toBe(false);
  });

  /** OpenClaw 2026.9.6's refusal of a call while it starts, drains for a restart or a stop, or is suspended. */
  const refusal = (method: string, reason: string) =>
    Object.assign(new Error(`${method} unavailable during gateway ${reason}`), { name: "GatewayClientRequestError", code: "UNAVAILABLE", retryable: true, retryAfterMs: 10, details: { method } });

  it("OpenClaw's refusal of agent.wait while it drains for a restart was the run's end (failed): the wait goes on until the service stops", async () => {
    const { runtime, calls } = fakeRuntime([]);
    runtime.subagent.waitForRun = async (p: unknown) => {
      calls.wait.push(p);
      throw refusal("agent.wait", "restart");
    };
    const stopping = new AbortController();
    let settled = false;
    const pending = createSubagentTurns(runtime, "main", createServiceScope())
      .runTurn(turn({ runId: "run-restart-1", signal: stopping.signal }))
      .finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 100));
    expect(settled).toBe(false);
    expect(calls.wait.length).toBeGreaterThan(1);
    stopping.abort();
    // The plugin's queue has already left the run to recovery when its signal aborts (the result is not recorded).
    expect((await pending).status).toBe("timeout");
  });

  it("a run refused by OpenClaw for now (suspended, starting) is started and joined once OpenClaw admits calls again", async () => {
    const { runtime, calls } = fakeRuntime([{ status: "ok", endedAt: 3 }], [{ role: "assistant", content: "after the pause" }]);
    const refusals = { run: 1, wait: 1, read: 1 };
    const { run, waitForRun, getSessionMessages } = runtime.subagent;
    runtime.subagent.run = async (p) => (refusals.run-- > 0 ? Promise.reject(refusal("agent", "startup")) : run(p));
    runtime.subagent.waitForRun = async (p) => (refusals.wait-- > 0 ? Promise.reject(refusal("agent.wait", "suspension")) : waitForRun(p));
    runtime.subagent.getSessionMessages = async (p) => (refusals.read-- > 0 ? Promise.reject(refusal("chat.history", "suspension")) : getSessionMessages(p));
    expect(await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).toEqual({ status: "ok", reply: "after the pause" });
    expect({ runs: calls.run.length, reads: calls.read.length }).toEqual({ runs: 1, reads: 1 });
  });

  it("an error OpenClaw does not mark retryable still ends the run", async () => {
    const { runtime } = fakeRuntime([]);
    runtime.subagent.waitForRun = async () => {
      throw Object.assign(new Error("unknown run"), { code: "INVALID_REQUEST", retryable: false });
    };
    await expect(createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).rejects.toThrow("unknown run");
  });

  it("finds no reply in a transcript without assistant text", () => {
    expect(lastAssistantText([{ role: "user", content: "hi" }, { role: "assistant", content: [{ type: "tool_use" }] }])).toBeUndefined();
  });
});
