/**
 * Backpressure through the plugin (SPEC §7): with `maxQueued: 5` and a blocked
 * runner, the run beyond the queue is refused with 503 `overloaded` and
 * Retry-After, while /wake and the run-status route keep answering.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { gatedRunner, tempDir } from "../helpers/temp-dir";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("backpressure through the plugin", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  let runner: ReturnType<typeof gatedRunner>;

  beforeEach(async () => {
    tmp = tempDir();
    runner = gatedRunner();
    plugin = await startPluginApp({
      stateDir: tmp.dir,
      runTurn: (req) => runner.runTurn(req),
      hooks: { rateLimit: { enabled: false }, runs: { maxConcurrent: 1, maxQueued: 5, shutdownGraceSeconds: 0 } },
    });
  });
  afterEach(async () => {
    runner.releaseAll();
    await plugin.close();
    tmp.remove();
  });

  const agent = (message: string) => request(plugin.app).post("/hooks/agent").set(AUTH).send({ message, deliver: false });

  it("the run beyond maxQueued (5) gets 503 overloaded with Retry-After; /wake and run status still answer; draining accepts again", async () => {
    const blocking = await agent("blocking");
    expect(blocking.status).toBe(202);
    await plugin.host.waitFor(() => runner.active.has("blocking"), 5000, "the blocked turn");

    const queued = [];
    for (let i = 1; i <= 5; i++) queued.push(await agent(`queued-${i}`));
    expect(queued.map((r) => r.status)).toEqual([202, 202, 202, 202, 202]);

    const refused = await agent("one too many");
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ ok: false, code: "overloaded", error: "Too many runs are queued (hooks.runs.maxQueued is 5); retry later." });
    expect(refused.headers["retry-after"]).toBe("30");
    expect(refused.headers["x-request-id"]).toBeDefined();

    // Accepting never waits for a run: /wake answers while the runner is blocked.
    const wake = await request(plugin.app).post("/hooks/wake").set(AUTH).send({ text: "still there?" });
    expect(wake.status).toBe(200);
    expect(wake.body).toEqual({ ok: true, mode: "now" });
    const status = await request(plugin.app).get(`/hooks/runs/${queued[4]!.body.runId}`).set(AUTH);
    expect(status.status).toBe(200);
    expect(status.body.run.status).toBe("queued");

    // The refused run left nothing behind; once one run finishes there is room again.
    expect(runner.started).toEqual(["blocking"]);
    runner.release("blocking");
    await plugin.host.waitFor(() => runner.active.has("queued-1"), 5000, "the next turn");
    expect((await agent("fits now")).status).toBe(202);
    expect(runner.started).not.toContain("one too many");
  });
});
