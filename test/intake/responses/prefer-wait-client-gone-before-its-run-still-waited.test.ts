/**
 * Regression: a `Prefer: wait` request whose client went away before its run was accepted
 * still waited for the run (up to its whole wait, the answer going nowhere), and a client gone
 * during the turn a large body waits before its dispatch (src/intake/accept.ts) was not
 * seen at all: its `close` had fired before the wait listened. Now the router reports a client
 * already gone at once, and the gate waits for no run of a gone client; its slot is free.
 */
import { createWaitGate } from "../../../src/intake/responses/prefer-wait";
import { createRunWaiters } from "../../../src/runs/run-waiters";

const CONFIG = { maxWaitSeconds: 30, maxWaitingPerClient: 1 };
const ACCEPTED = { status: 202, body: { ok: true, runId: "run-1", sessionKey: "hook:x" } };

describe("Prefer: wait, client gone before its run was accepted", () => {
  it("the router's client was already gone: no wait for the run, 202 at once, the client's slot free", async () => {
    const waiters = createRunWaiters();
    const gate = createWaitGate(CONFIG, waiters);
    const prepared = gate.prepare({ prefer: "wait=30", client: "a", routeKind: "agent", onClientGone: (stop) => stop() })!;
    prepared.awaitRun("run-1");
    expect(waiters.size).toBe(0);
    await expect(prepared.finish(ACCEPTED)).resolves.toEqual(ACCEPTED);
    expect(gate.prepare({ prefer: "wait=30", client: "a", routeKind: "agent" })).toBeDefined();
  });

  it("gone between the prepare and the run's accept: the same", async () => {
    const waiters = createRunWaiters();
    const gate = createWaitGate(CONFIG, waiters);
    let clientGone: () => void = () => undefined;
    const prepared = gate.prepare({ prefer: "wait=30", client: "a", routeKind: "agent", onClientGone: (stop) => (clientGone = stop) })!;
    clientGone();
    prepared.awaitRun("run-1");
    expect(waiters.size).toBe(0);
    await expect(prepared.finish(ACCEPTED)).resolves.toEqual(ACCEPTED);
  });

  it("a client that stays: its run is waited for (the control)", () => {
    const waiters = createRunWaiters();
    const prepared = createWaitGate(CONFIG, waiters).prepare({ prefer: "wait=30", client: "a", routeKind: "agent", onClientGone: () => undefined })!;
    prepared.awaitRun("run-1");
    expect(waiters.size).toBe(1);
  });
});
