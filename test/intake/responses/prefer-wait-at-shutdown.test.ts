/**
 * `Prefer: wait` at shutdown (SPEC §7, §12): every waiting request is answered 202 at
 * once when the plugin stops. Regression: a request whose run was stored in the same
 * instant the stop began (its run committed, its waiter not yet registered) started
 * waiting after the waiters were released, for a run the stopping queue never starts:
 * it hung for its whole wait (up to hooks.runs.maxWaitSeconds) instead of the 202.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import type { LogLine } from "../../helpers/fake-host";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("Prefer: wait at shutdown", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({ hooks: { runs: { maxWaitSeconds: 3600 } } });
  });
  afterEach(() => h.close());

  it("regression: a request whose run was stored as the stop began waited for its whole wait instead of the 202 at once", async () => {
    let stopping: Promise<void> | undefined;
    const push = h.host.logs.push.bind(h.host.logs);
    // The stop begins the moment the run is stored and queued, before the request registers its wait.
    h.host.logs.push = (...lines: LogLine[]) => {
      if (!stopping && lines.some((l) => l.message === "run queued")) stopping = h.close();
      return push(...lines);
    };
    const res = await request(h.app).post("/hooks/agent").set(bearer).set("Prefer", "wait=3600").send({ message: "stored as the stop began" });
    await stopping;
    expect(stopping).toBeDefined();
    expect([res.status, res.body.ok, typeof res.body.runId]).toEqual([202, true, "string"]);
  }, 10_000);
});
