/**
 * `GET {path}/runs/<id>` through the plugin (SPEC §7): each status in turn, the
 * public view's fields, 404 for an unknown id, 401 without the token, and a run
 * interrupted by a shutdown reported as `interrupted` after the restart.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { gatedRunner, tempDir } from "../helpers/temp-dir";
import { wrappedContent } from "../helpers/wrapped";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe("run status through the plugin", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  let runner: ReturnType<typeof gatedRunner>;
  const start = async (grace = 10, configSection?: string) =>
    (plugin = await startPluginApp({
      stateDir: tmp.dir,
      configSection,
      runTurn: (req) => runner.runTurn(req),
      hooks: { rateLimit: { enabled: false }, runs: { maxConcurrent: 1, shutdownGraceSeconds: grace } },
    }));
  const status = (id: string) => request(plugin.app).get(`/hooks/runs/${id}`).set(AUTH);
  const agent = (body: Record<string, unknown>) =>
    request(plugin.app)
      .post("/hooks/agent")
      .set(AUTH)
      .send({ deliver: false, ...body });

  beforeEach(() => {
    tmp = tempDir();
    runner = gatedRunner();
  });
  afterEach(async () => {
    runner.releaseAll();
    await plugin.close();
    tmp.remove();
  });

  it("reports queued → running → succeeded for a run, with timestamps and the summary", async () => {
    await start();
    const blocker = await agent({ message: "first", name: "First" });
    await plugin.host.waitFor(() => runner.active.has("first"), 5000, "first turn");
    const accepted = await agent({ message: "second", name: "Second", sessionKey: "hook:status-1" });
    expect(accepted.status).toBe(202);
    const id = accepted.body.runId as string;

    const queued = await status(id);
    expect(queued.status).toBe(200);
    expect(queued.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(queued.body).toEqual({
      ok: true,
      run: { id, status: "queued", name: "Second", sessionKey: "hook:status-1", createdAt: expect.stringMatching(ISO) },
    });

    runner.release("first");
    await plugin.host.waitFor(() => runner.active.has("second"), 5000, "second turn");
    const running = await status(id);
    expect(running.body.run).toEqual({
      id,
      status: "running",
      name: "Second",
      sessionKey: "hook:status-1",
      createdAt: queued.body.run.createdAt,
      startedAt: expect.stringMatching(ISO),
    });

    runner.release("second", { status: "ok", reply: "all green" });
    await plugin.host.waitFor(() => plugin.host.systemEvents.some((e) => wrappedContent(e.text) === "Hook Second: all green"), 5000, "summary");
    const done = await status(id);
    expect(done.body.run).toEqual({
      id,
      status: "succeeded",
      name: "Second",
      sessionKey: "hook:status-1",
      createdAt: queued.body.run.createdAt,
      startedAt: running.body.run.startedAt,
      finishedAt: expect.stringMatching(ISO),
      summary: "Hook Second: all green",
    });
    expect((await status(blocker.body.runId)).body.run.status).toBe("succeeded");
  });

  it("reports failed with the failure summary", async () => {
    await start();
    const accepted = await agent({ message: "breaks", name: "Breaks" });
    await plugin.host.waitFor(() => runner.active.has("breaks"), 5000, "turn");
    runner.release("breaks", { status: "error", error: "model unavailable" });
    await plugin.host.waitFor(() => plugin.host.systemEvents.length > 0, 5000, "summary");
    const res = await status(accepted.body.runId);
    expect(res.body.run.status).toBe("failed");
    expect(res.body.run.summary).toBe("Hook Breaks (failed): model unavailable");
  });

  it("reports interrupted after a restart when the run was cut off by shutdown", async () => {
    await start(0);
    const accepted = await agent({ message: "cut off", name: "Cut" });
    await plugin.host.waitFor(() => runner.active.has("cut off"), 5000, "turn");
    await plugin.close(); // grace 0: the turn is cancelled and the run left running
    await start(0);
    const res = await status(accepted.body.runId);
    expect(res.body.run.status).toBe("interrupted");
    expect(res.body.run.summary).toMatch(/^Hook Cut \(interrupted\): /);
    // The record keeps the plain summary; the main session got it wrapped.
    expect(plugin.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([res.body.run.summary]);
  });

  // Inside OpenClaw `hooks.*` is OpenClaw's own section: the stored error and summary named
  // hooks.runs.retryInterrupted (the host's log and answers were renamed, the runs store was not).
  it("an interrupted run's stored summary names the host's section key, not hooks.runs.retryInterrupted", async () => {
    const section = "plugins.entries.inbound-webhooks.config";
    await start(0, section);
    const accepted = await agent({ message: "cut off", name: "Cut" });
    await plugin.host.waitFor(() => runner.active.has("cut off"), 5000, "turn");
    await plugin.close();
    await start(0, section);
    const { run } = (await status(accepted.body.runId)).body as { run: { status: string; summary: string } };
    expect(run.status).toBe("interrupted");
    expect(run.summary).toContain(`(set ${section}.runs.retryInterrupted to re-run such runs)`);
    expect(`${run.summary} ${plugin.host.systemEvents.map((e) => e.text).join(" ")}`).not.toMatch(/(^|[^\w.-])hooks\./);
  });

  it("an unknown id → 404 not_found", async () => {
    await start();
    const res = await status("00000000-0000-4000-8000-000000000000");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, code: "not_found", error: expect.any(String) });
  });

  it("without the token → 401 unauthorized; with a wrong token → 401", async () => {
    await start();
    const accepted = await agent({ message: "private" });
    const none = await request(plugin.app).get(`/hooks/runs/${accepted.body.runId}`);
    expect(none.status).toBe(401);
    expect(none.body.code).toBe("unauthorized");
    const wrong = await request(plugin.app).get(`/hooks/runs/${accepted.body.runId}`).set("Authorization", "Bearer wrong-token-0000000000000");
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe("unauthorized");
    expect(JSON.stringify(none.body)).not.toContain(accepted.body.runId);
  });
});
