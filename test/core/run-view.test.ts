import { toRunView, type RunRecord } from "../../src/core/runs";

const base: RunRecord = {
  id: "3f1c2a5e-7a51-4b7e-9a55-0c6f8c1e2d11",
  status: "running",
  seq: 1,
  action: { kind: "agent", message: "m", name: "CI", sessionKey: "hook:ci", wakeMode: "now", deliver: true, channel: "last", timeoutSeconds: 600 },
  source: { hook: "agent", requestId: "r1", allowUnsafeExternalContent: false },
  createdAt: "2026-11-21T10:00:00.000Z",
  startedAt: "2026-11-21T10:00:01.000Z",
};

describe("toRunView", () => {
  it("shows the public fields only (no message, source or idempotency key)", () => {
    const view = toRunView({ ...base, idempotencyKey: "/hooks/agent:k1", error: "x" });
    expect(view).toEqual({ id: base.id, status: "running", name: "CI", sessionKey: "hook:ci", createdAt: base.createdAt, startedAt: base.startedAt });
  });

  it("a run queued again after an interruption shows no startedAt (regression: stale startedAt on retryInterrupted)", () => {
    expect(toRunView({ ...base, status: "queued" })).not.toHaveProperty("startedAt");
  });

  it("a finished run shows finishedAt and summary", () => {
    const view = toRunView({ ...base, status: "succeeded", finishedAt: "2026-11-21T10:00:02.000Z", summary: "Hook CI: done" });
    expect(view).toMatchObject({ status: "succeeded", startedAt: base.startedAt, finishedAt: "2026-11-21T10:00:02.000Z", summary: "Hook CI: done" });
  });
});
