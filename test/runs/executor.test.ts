import type { RunOutcome } from "../../src/core/runs";
import type { RunTurnRequest } from "../../src/host-contract/host-api";
import { NO_LAST_ROUTE_ERROR } from "../../src/runs/delivery";
import { INTERRUPTED_REASON, NO_LAST_ROUTE_NOTICE } from "../../src/runs/executor";
import { agentAction, createHarness, stopAllHarnesses, directSource, runRecord } from "./harness";
import { unwrap, wrappedContent } from "../helpers/wrapped";

afterEach(stopAllHarnesses);

const run = (over: Parameters<typeof agentAction>[0] = {}, source = directSource()) => runRecord({ status: "running", action: agentAction(over), source });

describe("run executor", () => {
  it("runs the turn, delivers to the last route, posts the summary and requests a heartbeat", async () => {
    const h = createHarness({
      host: { lastRoute: { channel: "bot_chat", to: "chat-42" }, runTurn: async () => ({ status: "ok", reply: "  Deploy 7 is live.  " }) },
    });
    const outcome = await h.executor.execute(run({ model: "openai/gpt-4o", thinking: "low", timeoutSeconds: 90 }));

    expect(outcome).toEqual({ status: "succeeded", reply: "  Deploy 7 is live.  ", summary: "Hook Deploy: Deploy 7 is live.", delivered: true });
    const turn = h.host.turns[0];
    expect(turn).toMatchObject({ sessionKey: "hook:deploy-1", message: "Summarise the deploy", model: "openai/gpt-4o", thinking: "low", timeoutMs: 90_000 });
    expect(turn.signal).toBeInstanceOf(AbortSignal);
    expect(h.host.deliveries).toEqual([{ channel: "bot_chat", to: "chat-42", text: "Deploy 7 is live." }]);
    expect(h.host.systemEvents).toEqual([
      {
        sessionKey: "main",
        text: expect.any(String),
        meta: { source: "hook:agent", kind: "run-summary", runId: run().id, dedupeKey: `run-summary:${run().id}`, wrapped: true },
      },
    ]);
    expect(unwrap(h.host.systemEvents[0].text)).toEqual({
      id: "0000000000000001",
      source: 'Source: webhook "agent"',
      content: "Hook Deploy: Deploy 7 is live.",
    });
    expect(h.host.heartbeats).toEqual([{ reason: "hook:agent" }]);
    expect(h.events.map((e) => e.name)).toEqual(["run:started", "run:finished"]);
    expect(h.events[1].event).toEqual({ runId: run().id, sessionKey: "hook:deploy-1", name: "Deploy", status: "succeeded", delivered: true });
  });

  it("omits model and thinking from the turn when the action has none", async () => {
    const h = createHarness();
    await h.executor.execute(run());
    expect("model" in h.host.turns[0]).toBe(false);
    expect("thinking" in h.host.turns[0]).toBe(false);
  });

  it("does not request a heartbeat for wakeMode next-heartbeat", async () => {
    const h = createHarness();
    await h.executor.execute(run({ wakeMode: "next-heartbeat" }));
    expect(h.host.systemEvents).toHaveLength(1);
    expect(h.host.heartbeats).toEqual([]);
  });

  it("deliver:false posts the summary without delivering", async () => {
    const h = createHarness({ host: { lastRoute: { channel: "bot_chat", to: "chat-42" } } });
    const outcome = await h.executor.execute(run({ deliver: false }));
    expect(outcome.delivered).toBe(false);
    expect(h.host.deliveries).toEqual([]);
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual(["Hook Deploy: echo: Summarise the deploy"]);
  });

  it("does not deliver a heartbeat acknowledgement", async () => {
    const h = createHarness({
      host: { lastRoute: { channel: "bot_chat", to: "chat-42" }, runTurn: async () => ({ status: "ok", reply: "**HEARTBEAT_OK**" }) },
    });
    const outcome = await h.executor.execute(run());
    expect(outcome).toMatchObject({ status: "succeeded", delivered: false });
    expect(outcome.deliveryError).toBeUndefined();
    expect(h.host.deliveries).toEqual([]);
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual(["Hook Deploy: **HEARTBEAT_OK**"]);
  });

  it("delivers on an explicit channel to the last recipient only when the last route used that channel", async () => {
    const h = createHarness({ host: { lastRoute: { channel: "phone_chat", to: "+15550001111" } } });
    await h.executor.execute(run({ channel: "phone_chat" }));
    await h.executor.execute(run({ channel: "bot_chat" }));
    await h.executor.execute(run({ channel: "bot_chat", to: "chat-9" }));
    expect(h.host.deliveries.map(({ channel, to }) => ({ channel, to }))).toEqual([
      { channel: "phone_chat", to: "+15550001111" },
      { channel: "bot_chat", to: undefined },
      { channel: "bot_chat", to: "chat-9" },
    ]);
  });

  it("an explicit `to` wins over the last route's recipient on channel last", async () => {
    const h = createHarness({ host: { lastRoute: { channel: "phone_chat", to: "+15550001111" } } });
    await h.executor.execute(run({ to: "+15559998888" }));
    expect(h.host.deliveries[0]).toMatchObject({ channel: "phone_chat", to: "+15559998888" });
  });

  it("a direct run with channel last and no last route is not delivered and says why", async () => {
    const h = createHarness();
    const outcome = await h.executor.execute(run());
    expect(outcome).toMatchObject({ status: "succeeded", delivered: false, deliveryError: NO_LAST_ROUTE_ERROR });
    expect(h.host.deliveries).toEqual([]);
    expect(outcome.summary).toBe("Hook Deploy: echo: Summarise the deploy\n(not delivered: no last route)");
    await h.host.waitFor(() => h.host.logs.some((l) => l.level === "warn" && l.meta?.code === "no_last_route"));
  });

  it("a mapped run with channel last and no last route falls back to phone_chat", async () => {
    const h = createHarness();
    const outcome = await h.executor.execute(run({ to: "+15550002222" }, directSource({ hook: "mail", mappingId: "mail" })));
    expect(outcome.delivered).toBe(true);
    expect(h.host.deliveries).toEqual([{ channel: "phone_chat", to: "+15550002222", text: "echo: Summarise the deploy" }]);
    expect(h.host.systemEvents[0].meta).toEqual({
      source: "hook:mail",
      kind: "run-summary",
      runId: run().id,
      dedupeKey: `run-summary:${run().id}`,
      wrapped: true,
      mappingId: "mail",
    });
    expect(unwrap(h.host.systemEvents[0].text).source).toBe('Source: webhook "mail", mapping "mail"');
  });

  it('every mapped run inside OpenClaw reported `delivery to phone_chat failed: OpenClaw offers no channel "phone_chat"`: a host without phone_chat gets no fallback, the summary says so, the log once', async () => {
    const h = createHarness({ host: { channels: ["bot_chat"] } });
    const mapped = directSource({ hook: "github", mappingId: "github" });
    const first = await h.executor.execute(run({}, mapped));
    const second = await h.executor.execute({ ...run({}, mapped), id: "second-run" });
    for (const outcome of [first, second]) {
      expect(outcome).toMatchObject({ status: "succeeded", delivered: false, deliveryError: NO_LAST_ROUTE_ERROR });
      expect(outcome.summary).toBe("Hook Deploy: echo: Summarise the deploy\n(not delivered: no last route)");
    }
    expect(h.host.deliveries).toEqual([]);
    const noted = h.host.logs.filter((l) => l.meta?.code === "no_last_route");
    expect(noted.map((l) => [l.level, l.message.includes(NO_LAST_ROUTE_NOTICE)])).toEqual([
      ["warn", true],
      ["debug", false],
    ]);
  });

  it("reports a delivery failure on the outcome, in the summary and in the log", async () => {
    const h = createHarness({
      host: {
        lastRoute: { channel: "bot_chat", to: "chat-42" },
        deliver: async () => {
          throw new Error("recipient blocked the bot");
        },
      },
    });
    const outcome = await h.executor.execute(run());
    expect(outcome).toMatchObject({ status: "succeeded", delivered: false, deliveryError: "delivery to bot_chat failed: recipient blocked the bot" });
    expect(outcome.summary).toBe("Hook Deploy: echo: Summarise the deploy\n(delivery to bot_chat failed: recipient blocked the bot)");
    expect(h.events[1].event).toMatchObject({ status: "succeeded", delivered: false });
    await h.host.waitFor(() => h.host.logs.some((l) => l.level === "error" && l.meta?.code === "delivery_failed" && l.meta?.channel === "bot_chat"));
  });

  it("a last route the host cannot read is a delivery failure: the run still succeeds and its summary is posted (regression: the run was recorded failed and no summary was posted)", async () => {
    const h = createHarness({ host: { runTurn: async () => ({ status: "ok", reply: "Deploy 7 is live." }) } });
    Object.defineProperty(h.host, "lastRoute", {
      get() {
        throw new Error("session store unavailable");
      },
    });
    const outcome = await h.executor.execute(run());
    expect(outcome).toMatchObject({ status: "succeeded", delivered: false, deliveryError: "the last route could not be read: session store unavailable" });
    expect(outcome.summary).toBe("Hook Deploy: Deploy 7 is live.\n(the last route could not be read: session store unavailable)");
    expect(h.host.deliveries).toEqual([]);
    expect(h.host.systemEvents).toHaveLength(1);
    expect(wrappedContent(h.host.systemEvents[0].text)).toBe(outcome.summary);
    expect(h.host.heartbeats).toEqual([{ reason: "hook:agent" }]);
    await h.host.waitFor(() => h.host.logs.some((l) => l.level === "error" && l.meta?.code === "delivery_failed"));
  });

  it("trims the reply in the summary to 2000 characters but delivers all of it", async () => {
    const long = "a".repeat(2500);
    const h = createHarness({ host: { lastRoute: { channel: "bot_chat", to: "c" }, runTurn: async () => ({ status: "ok", reply: long }) } });
    const outcome = await h.executor.execute(run());
    expect(outcome.summary).toBe(`Hook Deploy: ${"a".repeat(1999)}…`);
    expect(h.host.deliveries[0].text).toBe(long);
  });

  it.each([
    [{ status: "error", error: "model overloaded" } as const, "failed", "Hook Deploy (failed): model overloaded"],
    [{ status: "error" } as const, "failed", "Hook Deploy (failed): the agent runner reported an error without a reason"],
    [{ status: "timeout", error: "upstream timed out" } as const, "timed_out", "Hook Deploy (timed_out): upstream timed out"],
  ])("maps runner result %j to %s", async (result, status, summary) => {
    const h = createHarness({ host: { lastRoute: { channel: "bot_chat", to: "c" }, runTurn: async () => result } });
    const outcome = await h.executor.execute(run());
    expect(outcome).toMatchObject({ status, summary, delivered: false });
    expect(h.host.deliveries).toEqual([]);
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([summary]);
    expect(h.host.heartbeats).toEqual([{ reason: "hook:agent" }]);
  });

  it("maps a runner that throws to failed", async () => {
    const h = createHarness({
      host: {
        runTurn: async () => {
          throw new Error("socket hang up");
        },
      },
    });
    const outcome = await h.executor.execute(run());
    expect(outcome).toMatchObject({
      status: "failed",
      error: "the agent runner failed: socket hang up",
      summary: "Hook Deploy (failed): the agent runner failed: socket hang up",
    });
  });

  it("calls onOutcome before emitting run:finished", async () => {
    const h = createHarness();
    const order: string[] = [];
    h.emitter.on("run:finished", () => order.push("event"));
    await h.executor.execute(run(), undefined, (o: RunOutcome) => void order.push(`outcome:${o.status}`));
    expect(order).toEqual(["outcome:succeeded", "event"]);
  });

  it("a cancelled run posts nothing and is left for recovery", async () => {
    const h = createHarness({
      host: { runTurn: (req) => new Promise((resolve) => req.signal.addEventListener("abort", () => resolve({ status: "error", error: "aborted" }))) },
    });
    const cancel = new AbortController();
    const pending = h.executor.execute(run(), cancel.signal);
    await h.turns(1);
    cancel.abort(new Error("the gateway is shutting down"));
    const outcome = await pending;
    expect(outcome).toEqual({ status: "failed", error: "cancelled: the gateway is shutting down", summary: "", delivered: false, cancelled: true });
    expect(h.host.turns[0].signal.aborted).toBe(true);
    expect(h.host.systemEvents).toEqual([]);
    expect(h.host.heartbeats).toEqual([]);
    expect(h.events.map((e) => e.name)).toEqual(["run:started"]);
  });

  it("reportInterrupted posts `Hook <name> (interrupted): <reason>` and returns it", async () => {
    const h = createHarness();
    const summary = await h.executor.reportInterrupted(run());
    expect(summary).toBe(`Hook Deploy (interrupted): ${INTERRUPTED_REASON}`);
    expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([summary]);
    expect(h.host.heartbeats).toEqual([{ reason: "hook:agent" }]);
    expect(await h.executor.reportInterrupted(runRecord({ error: "custom reason", action: agentAction({ wakeMode: "next-heartbeat" }) }))).toBe(
      "Hook Deploy (interrupted): custom reason",
    );
    expect(h.host.heartbeats).toHaveLength(1);
  });

  // SPEC §5.3, with real timers: the outcome is asserted, never the elapsed time.
  describe("timeout", () => {
    const timers: NodeJS.Timeout[] = [];
    afterEach(() => timers.splice(0).forEach(clearTimeout));

    it("times out a 5 s runner that ignores its signal at timeoutSeconds 1", async () => {
      let seen: RunTurnRequest | undefined;
      const h = createHarness({
        host: {
          runTurn: (req) =>
            new Promise((resolve) => {
              seen = req;
              timers.push(setTimeout(() => resolve({ status: "ok", reply: "too late" }), 5000));
            }),
        },
      });
      const outcome = await h.executor.execute(run({ timeoutSeconds: 1 }));
      expect(seen?.timeoutMs).toBe(1000);
      expect(seen?.signal.aborted).toBe(true);
      expect(outcome).toEqual({
        status: "timed_out",
        error: "the run did not finish within 1 s (timeoutSeconds) and was aborted",
        summary: "Hook Deploy (timed_out): the run did not finish within 1 s (timeoutSeconds) and was aborted",
        delivered: false,
      });
      expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([outcome.summary]);
      expect(h.host.deliveries).toEqual([]);
    });

    it("times out a 5 s runner that honours its signal at timeoutSeconds 1", async () => {
      let abortReason: unknown;
      const h = createHarness({
        host: {
          runTurn: (req) =>
            new Promise((resolve) => {
              const t = setTimeout(() => resolve({ status: "ok", reply: "too late" }), 5000);
              timers.push(t);
              req.signal.addEventListener("abort", () => {
                clearTimeout(t);
                abortReason = req.signal.reason;
                resolve({ status: "timeout", error: "aborted by signal" });
              });
            }),
        },
      });
      const outcome = await h.executor.execute(run({ timeoutSeconds: 1 }));
      expect(abortReason).toBeInstanceOf(Error);
      expect((abortReason as Error).name).toBe("TimeoutError");
      expect(outcome.status).toBe("timed_out");
      expect(outcome.summary).toBe("Hook Deploy (timed_out): the run did not finish within 1 s (timeoutSeconds) and was aborted");
      expect(h.events[1].event).toMatchObject({ status: "timed_out", delivered: false });
    });
  });

  // SPEC §5.3 ("aborted within ~1 s"), on jest's fake clock: the bound is
  // exactly timeoutSeconds — still pending at 999 ms, timed out and aborted at 1000 ms.
  describe("timeout on the fake clock", () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it.each([
      ["ignores", false],
      ["honours", true],
    ])("a runner that %s its signal is aborted at exactly timeoutSeconds, not before", async (_how, honours) => {
      let seen: RunTurnRequest | undefined;
      const h = createHarness({
        host: {
          runTurn: (req) =>
            new Promise((resolve) => {
              seen = req;
              if (honours) req.signal.addEventListener("abort", () => resolve({ status: "timeout", error: "aborted by signal" }));
            }),
        },
      });
      let outcome: RunOutcome | undefined;
      const running = h.executor.execute(run({ timeoutSeconds: 1 })).then((o) => (outcome = o));

      await jest.advanceTimersByTimeAsync(999);
      expect(seen?.signal.aborted).toBe(false);
      expect(outcome).toBeUndefined();
      expect(h.host.systemEvents).toEqual([]);

      await jest.advanceTimersByTimeAsync(1);
      expect(seen?.signal.aborted).toBe(true);
      expect((seen?.signal.reason as Error).name).toBe("TimeoutError");
      await running;
      expect(outcome).toEqual({
        status: "timed_out",
        error: "the run did not finish within 1 s (timeoutSeconds) and was aborted",
        summary: "Hook Deploy (timed_out): the run did not finish within 1 s (timeoutSeconds) and was aborted",
        delivered: false,
      });
      expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([outcome!.summary]);
    });
  });
});
