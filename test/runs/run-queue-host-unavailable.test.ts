/**
 * A turn the host answers `unavailable` (host contract 2.0: OpenClaw drains for a stop or a restart, or reloads
 * the plugin) is never the run's failure (SPEC §7 "In every host"; issue 32: OpenClaw's stop recorded both runs
 * `failed` with its refusal, and their keyed retries replayed the failure). A turn the host had started is left
 * `running`, so the next start recovers it (`interrupted`, or run again with `retryInterrupted`); a turn it refused
 * to start goes back to `queued`, and the queue starts nothing for a pause.
 */
import type { RunTurnResult } from "../../src/host-contract/host-api";
import { INTERRUPTED_REASON } from "../../src/runs/executor";
import { agentAction, createHarness, directSource, stopAllHarnesses } from "./harness";

afterEach(stopAllHarnesses);

const unavailable = (started: boolean): RunTurnResult => ({ status: "unavailable", started, error: "Gateway instance dispatch unavailable for agent turn" });

describe("run queue: the host unavailable for a turn", () => {
  it("regression: a run whose turn the host cut off while draining was recorded failed; it is left running, then interrupted at the next start, never failed", async () => {
    const first = createHarness({ host: { runTurn: async () => unavailable(true) }, queue: { hostUnavailablePauseMs: 60_000 } });
    await first.queue.start();
    const accepted = await first.queue.accept(agentAction(), directSource());
    if (!accepted.ok) throw new Error("not accepted");
    const id = accepted.value.id;
    await first.turns(1);
    await first.host.waitFor(() => first.host.logs.some((l) => l.message.includes("left for recovery")), 5000, "the run left for recovery");
    expect(first.store.get(id)).toMatchObject({ status: "running", attempts: 1 });
    expect(first.host.systemEvents).toEqual([]);
    await first.queue.stop(0);

    const next = createHarness({ store: first.store });
    await next.queue.start();
    expect(next.store.get(id)).toMatchObject({ status: "interrupted", error: INTERRUPTED_REASON });
  });

  it("with retryInterrupted the run cut off by the host runs again at the next start and succeeds", async () => {
    const first = createHarness({ host: { runTurn: async () => unavailable(true) }, queue: { hostUnavailablePauseMs: 60_000 } });
    await first.queue.start();
    const accepted = await first.queue.accept(agentAction(), directSource());
    if (!accepted.ok) throw new Error("not accepted");
    await first.turns(1);
    await first.host.waitFor(() => first.store.get(accepted.value.id)?.attempts === 1, 5000, "the run started");
    await first.queue.stop(0);

    const next = createHarness({ store: first.store, config: { retryInterrupted: true } });
    await next.queue.start();
    expect(await next.finished(accepted.value.id)).toMatchObject({ status: "succeeded" });
  });

  it("a run the host refused to start (draining) goes back to queued, its attempt not counted, and nothing starts during the pause", async () => {
    let refuse = true;
    const h = createHarness({
      host: { runTurn: async () => (refuse ? unavailable(false) : { status: "ok", reply: "done" }) },
      config: { maxConcurrent: 1 },
      queue: { hostUnavailablePauseMs: 300 },
    });
    await h.queue.start();
    const a = await h.queue.accept(agentAction({ sessionKey: "hook:a" }), directSource());
    const b = await h.queue.accept(agentAction({ sessionKey: "hook:b" }), directSource());
    if (!a.ok || !b.ok) throw new Error("not accepted");
    await h.turns(1);
    await h.host.waitFor(() => h.store.get(a.value.id)?.status === "queued", 5000, "the refused run queued again");
    expect(h.store.get(a.value.id)).toMatchObject({ status: "queued", attempts: 0 });
    // Paused: the second run is not started (the host would refuse it too).
    await new Promise((r) => setTimeout(r, 100));
    expect(h.host.turns).toHaveLength(1);
    expect(h.store.get(b.value.id)?.status).toBe("queued");
    refuse = false;
    expect(await h.finished(a.value.id)).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(await h.finished(b.value.id)).toMatchObject({ status: "succeeded" });
  });

  it("a run queued again because the host refused it is still queued after a stop, and resumes at the next start (not interrupted)", async () => {
    const first = createHarness({ host: { runTurn: async () => unavailable(false) }, queue: { hostUnavailablePauseMs: 60_000 } });
    await first.queue.start();
    const accepted = await first.queue.accept(agentAction(), directSource());
    if (!accepted.ok) throw new Error("not accepted");
    await first.turns(1);
    await first.host.waitFor(() => first.store.get(accepted.value.id)?.status === "queued", 5000, "the refused run queued again");
    await first.queue.stop(0);

    const next = createHarness({ store: first.store });
    await next.queue.start();
    expect(await next.finished(accepted.value.id)).toMatchObject({ status: "succeeded" });
  });
});
