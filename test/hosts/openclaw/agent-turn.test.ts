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

const turn = (over: Partial<Parameters<ReturnType<typeof createSubagentTurns>["runTurn"]>[0]> = {}) => ({
  sessionKey: "hook:x",
  message: "m",
  timeoutMs: 60_000,
  signal: new AbortController().signal,
  ...over,
});

describe("agent turns through OpenClaw's subagent runtime", () => {
  it("maps the session key to OpenClaw's agent form and a model ref to provider + model", () => {
    expect(openClawSessionKey("main", "hook:github:o/r#1")).toBe("agent:main:hook:github:o/r#1");
    expect(splitModelRef("openai/gpt-x")).toEqual({ provider: "openai", model: "gpt-x" });
  });

  it("every run went to the default agent's session, whatever agentId it named: the run's agent, agent:<agentId>:hook:…", async () => {
    const { runtime, calls } = fakeRuntime([{ status: "ok", endedAt: 1 }]);
    await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn({ agentId: "ops" }));
    expect(calls.run[0]).toEqual({ sessionKey: "agent:ops:hook:x", message: "m", deliver: false });
  });

  it("a key already in OpenClaw's agent form (a prefix admitting agent:) picked its agent past allowedAgentIds: it is re-scoped to the run's", () => {
    expect(openClawSessionKey("main", "agent:ops:hook:x")).toBe("agent:main:hook:x");
    expect(openClawSessionKey("research", "agent:main:main")).toBe("agent:research:main");
  });

  it("runs, waits past a pending observation, and answers the newest assistant text", async () => {
    const { runtime, calls } = fakeRuntime(
      [{ status: "pending" }, { status: "ok", endedAt: 1 }],
      [
        { role: "user", content: "m" },
        {
          role: "assistant",
          content: [
            { type: "text", text: "the " },
            { type: "text", text: "reply" },
          ],
        },
      ],
    );
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
    expect(await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).toEqual({
      status: "error",
      error: "OpenClaw refused the run: missing scope: operator.write",
    });
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
    Object.assign(new Error(`${method} unavailable during gateway ${reason}`), {
      name: "GatewayClientRequestError",
      code: "UNAVAILABLE",
      retryable: true,
      retryAfterMs: 10,
      details: { method },
    });

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

  // Recorded `failed` before (issue 32): "Gateway is draining; new tasks are not accepted" (the queued run, the model never saw it).
  it("a start refused because OpenClaw drains is unavailable, not started (not the run's failure)", async () => {
    const { runtime } = fakeRuntime([]);
    runtime.subagent.run = async () => {
      throw Object.assign(new Error("Gateway is draining; new tasks are not accepted"), { name: "GatewayDrainingError" });
    };
    expect(await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn({ runId: "run-drain-1" }))).toEqual({
      status: "unavailable",
      started: false,
      error: "OpenClaw refused the run for now: Gateway is draining; new tasks are not accepted",
    });
  });

  // Recorded `failed` before (issue 32): "the agent runner failed: Gateway instance dispatch unavailable for agent turn".
  it("a wait OpenClaw's closing instance refuses is unavailable after the start, and the turn is kept to be joined", async () => {
    const { runtime } = fakeRuntime([]);
    runtime.subagent.waitForRun = async () => {
      throw new Error("Gateway instance dispatch unavailable for agent turn");
    };
    const turns = createSubagentTurns(runtime, "main", createServiceScope());
    expect(await turns.runTurn(turn({ runId: "run-closing-1" }))).toEqual({
      status: "unavailable",
      started: true,
      error: "OpenClaw became unavailable during the run: Gateway instance dispatch unavailable for agent turn",
    });
    expect(turns.stillRunning("run-closing-1")).toBe(true);
  });

  it("a run OpenClaw ended with a refusal text as its error (draining, a retired plugin generation) is unavailable, not failed", async () => {
    for (const error of ["Gateway is draining; new tasks are not accepted", "Plugin inventory has retired; begin a new plugin operation."]) {
      const { runtime } = fakeRuntime([{ status: "error", error, endedAt: 4 }]);
      expect(await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).toEqual({
        status: "unavailable",
        started: true,
        error: `OpenClaw ended the run while unavailable: ${error}`,
      });
    }
  });

  it("reading the reply while OpenClaw's instance closes is unavailable after the start", async () => {
    const { runtime } = fakeRuntime([{ status: "ok", endedAt: 3 }]);
    runtime.subagent.getSessionMessages = async () => {
      throw new Error("Gateway instance dispatch unavailable for chat.history");
    };
    expect(await createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).toMatchObject({ status: "unavailable", started: true });
  });

  // Regression: a stop with a run in flight took 330 s (OpenClaw's whole drain budget): the run, started on no tracked root,
  // could not complete while OpenClaw drained. Only the start goes on the root: the plugin's own waits stay outside it.
  it("starts each run on OpenClaw's detached admission root (runDetachedWebhookWork), and waits for it outside that root", async () => {
    const { runtime } = fakeRuntime([{ status: "ok", endedAt: 1 }], [{ role: "assistant", content: "r" }]);
    let onRoot = false;
    const seen: Record<string, boolean> = {};
    const { run, waitForRun } = runtime.subagent;
    runtime.subagent.run = async (p) => ((seen.run = onRoot), run(p));
    runtime.subagent.waitForRun = async (p) => ((seen.wait = onRoot), waitForRun(p));
    const detached = async <T>(work: () => Promise<T>): Promise<T> => {
      onRoot = true;
      try {
        return await work();
      } finally {
        onRoot = false;
      }
    };
    const turns = createSubagentTurns(runtime, "main", createServiceScope(), undefined, async () => detached);
    expect(await turns.runTurn(turn())).toEqual({ status: "ok", reply: "r" });
    expect(seen).toEqual({ run: true, wait: false });
  });

  it("a run OpenClaw's drain refuses a root for (runDetachedWebhookWork throws GatewayDrainingError) is unavailable, not started", async () => {
    const { runtime } = fakeRuntime([]);
    const draining = async (): Promise<never> => {
      throw Object.assign(new Error("gateway is draining for restart"), { name: "GatewayDrainingError" });
    };
    const turns = createSubagentTurns(runtime, "main", createServiceScope(), undefined, async () => draining);
    expect(await turns.runTurn(turn())).toMatchObject({ status: "unavailable", started: false });
  });

  it("an error OpenClaw does not mark retryable still ends the run", async () => {
    const { runtime } = fakeRuntime([]);
    runtime.subagent.waitForRun = async () => {
      throw Object.assign(new Error("unknown run"), { code: "INVALID_REQUEST", retryable: false });
    };
    await expect(createSubagentTurns(runtime, "main", createServiceScope()).runTurn(turn())).rejects.toThrow("unknown run");
  });

  it("finds no reply in a transcript without assistant text", () => {
    expect(
      lastAssistantText([
        { role: "user", content: "hi" },
        { role: "assistant", content: [{ type: "tool_use" }] },
      ]),
    ).toBeUndefined();
  });
});
