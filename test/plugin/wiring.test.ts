/**
 * The whole plugin, activated on the fake host: config → pipeline → dispatcher →
 * durable run queue → executor → host effects. Checks the wiring that unit tests
 * of each module cannot see.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import request from "supertest";
import { routeHost } from "../helpers/route-host";
import { activate } from "../../src/plugin/index";
import { createFakeHost } from "../helpers/fake-host";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { wrappedContent } from "../helpers/wrapped";

const auth = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("plugin wiring (activate on a host, real pipeline and run queue)", () => {
  let p: PluginApp;
  afterEach(async () => {
    await p?.close();
  });

  it("wake: enqueues wrapped text on main and requests a heartbeat", async () => {
    p = await startPluginApp();
    const res = await request(p.app).post("/hooks/wake").set(auth).send({ text: "disk almost full" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "now" });
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(p.host.systemEvents).toHaveLength(1);
    expect(p.host.systemEvents[0].sessionKey).toBe("main");
    expect(p.host.systemEvents[0].text).toContain("disk almost full");
    expect(p.host.systemEvents[0].text).toMatch(/<<<EXTERNAL_UNTRUSTED_CONTENT id="[0-9a-f]+">>>/);
    expect(p.host.heartbeats).toEqual([{ reason: "hook:wake" }]);
  });

  it("agent: 202, run persisted and executed, summary on main, reply delivered on the last route", async () => {
    p = await startPluginApp({ lastRoute: { channel: "bot_chat", to: "42" } });
    const res = await request(p.app).post("/hooks/agent").set(auth).send({ message: "summarise the build", name: "CI" });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, runId: expect.any(String), sessionKey: expect.stringMatching(/^hook:[0-9a-f-]{36}$/) });
    await p.host.waitForSystemEvents(1);
    expect(p.host.turns).toHaveLength(1);
    expect(p.host.turns[0].sessionKey).toBe(res.body.sessionKey);
    expect(p.host.turns[0].message).toContain("summarise the build");
    expect(wrappedContent(p.host.systemEvents[0].text)).toMatch(/^Hook CI: echo: /);
    await p.host.waitFor(() => p.host.deliveries.length === 1, 5000, "delivery");
    expect(p.host.deliveries[0]).toMatchObject({ channel: "bot_chat", to: "42" });
    await p.host.waitFor(() => p.host.heartbeats.length === 1, 5000, "heartbeat");
    expect(p.host.heartbeats[0].reason).toBe("hook:agent");

    const status = await request(p.app).get(`/hooks/runs/${res.body.runId}`).set(auth);
    expect(status.status).toBe(200);
    expect(status.body.run).toMatchObject({ id: res.body.runId, status: "succeeded", name: "CI", sessionKey: res.body.sessionKey });
  });

  it("invalid configuration fails activation naming the key", async () => {
    await expect(startPluginApp({ hooks: { token: "short" } })).rejects.toThrow(/hooks\.token/);
  });

  it("the host's routes are untouched: /hooksX is not the plugin's", async () => {
    p = await startPluginApp();
    const res = await request(p.app).post("/hooksX/wake").set(auth).send({ text: "x" });
    expect(res.status).toBe(404);
    expect(res.text).toBe("host: no route");
  });

  it("host events: finished heartbeats are counted; `gateway: stopping` refuses new requests with 503 before services stop", async () => {
    p = await startPluginApp();
    expect(p.activation.hostActivity()).toEqual({ heartbeats: { finished: 0 }, hostStopping: false });
    p.host.events.emit("heartbeat", { phase: "started", reason: "interval" });
    p.host.events.emit("heartbeat", { phase: "finished", reason: "interval" });
    p.host.events.emit("heartbeat", { phase: "finished", reason: "hook:wake" });
    p.host.events.emit("session", { phase: "created", sessionKey: "hook:x" });
    expect(p.activation.hostActivity()).toEqual({ heartbeats: { finished: 2, lastReason: "hook:wake" }, hostStopping: false });

    expect((await request(p.app).post("/hooks/wake").set(auth).send({ text: "before" })).status).toBe(200);
    p.host.events.emit("gateway", { phase: "stopping" });
    expect(p.activation.hostActivity().hostStopping).toBe(true);
    const refused = await request(p.app).post("/hooks/wake").set(auth).send({ text: "after" });
    expect(refused.status).toBe(503);
    expect(refused.body).toEqual({ ok: false, code: "shutting_down", error: "The gateway is shutting down; retry later." });
    expect(refused.headers["retry-after"]).toBe("5");
    const agent = await request(p.app).post("/hooks/agent").set(auth).send({ message: "after" });
    expect(agent.status).toBe(503);
    expect(p.host.systemEvents).toHaveLength(1);
    expect(p.host.turns).toHaveLength(0);
    expect(p.host.logs.some((l) => l.level === "info" && l.message === "host is stopping: new hook requests are refused with 503 shutting_down")).toBe(true);
  });

  it("stopping the plugin's services removes its listeners from the host's events", async () => {
    p = await startPluginApp();
    const counts = () => ["heartbeat", "session", "gateway"].map((e) => p.host.events.listenerCount(e as "heartbeat"));
    expect(counts()).toEqual([1, 1, 1]);
    await p.close();
    expect(counts()).toEqual([0, 0, 0]);
  });

  // SPEC §5.1: a payload cannot address the main session.
  it('/agent with sessionKey "main" runs on "hook:main", never on "main"', async () => {
    p = await startPluginApp();
    const res = await request(p.app).post("/hooks/agent").set(auth).send({ message: "take over main", sessionKey: "main", deliver: false });
    expect(res.status).toBe(202);
    expect(res.body.sessionKey).toBe("hook:main");
    await p.host.waitForSystemEvents(1);
    expect(p.host.turns).toHaveLength(1);
    expect(p.host.turns[0].sessionKey).toBe("hook:main");
    expect(p.host.turns.some((t) => t.sessionKey === "main")).toBe(false);
  });
});

describe("the hooks route before the runs service started", () => {
  it("answers 503 shutting_down with Retry-After and X-Request-Id, and queues nothing", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "iw-notstarted-"));
    const host = createFakeHost({ config: { hooks: { enabled: true, token: TEST_TOKEN } }, stateDir, configDir: stateDir });
    activate(host.api);
    const app = routeHost(host.routes);
    const res = await request(app).post("/hooks/wake").set(auth).send({ text: "too early" });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ok: false, code: "shutting_down", error: "The hooks service is not running (not started yet, or stopped); retry later." });
    expect(res.headers["retry-after"]).toBe("5");
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(host.systemEvents).toHaveLength(0);
    await host.stopServices();
    rmSync(stateDir, { recursive: true, force: true });
  });
});
