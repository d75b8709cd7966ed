/**
 * A fan-out (SPEC §12) stores its agent runs in one transaction, then posts its wake
 * events. Regression: when a wake was refused after the runs were stored (here the
 * host could not store the event: a full disk), the request was answered 503 while
 * its runs stayed queued and ran, and the idempotency key was freed — so the sender's
 * retry of the 503 stored and ran every run a second time.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import request from "supertest";
import { until } from "../../helpers/until";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };

const TRANSFORM = `
module.exports = (ctx) =>
  ctx.item === "agent"
    ? { message: "item " + ctx.index, sessionKey: "hook:fan:" + ctx.index, deliver: false }
    : { kind: "wake", text: "wake " + ctx.index, mode: "next-heartbeat" };
`;

describe("fan-out refused after its runs were stored", () => {
  let dir: string;
  let h: PluginApp;
  beforeEach(async () => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "iw-fan-refused-")));
    fs.mkdirSync(path.join(dir, "hooks", "transforms"), { recursive: true });
    fs.writeFileSync(path.join(dir, "hooks", "transforms", "fan.cjs"), TRANSFORM);
    h = await startPluginApp({
      configDir: dir,
      hooks: { mappings: [{ id: "fan", match: { path: "fan" }, action: "agent", forEach: "events", transform: { module: "fan.cjs" } }] },
    });
  });
  afterEach(async () => {
    await h.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("regression: a wake refused after the runs were stored answered 503 and freed the key, so the retry ran every run twice", async () => {
    const sessions = h.host.api.runtime.sessions;
    const enqueue = sessions.enqueueSystemEvent.bind(sessions);
    let full = true;
    sessions.enqueueSystemEvent = (sessionKey, text, meta) => {
      if (full && meta?.kind === "wake") throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      return enqueue(sessionKey, text, meta);
    };
    const body = { events: ["agent", "agent", "wake"] };
    const first = await request(h.app).post("/hooks/fan").set(bearer).set("Idempotency-Key", "fan-1").send(body);
    full = false;
    const retry = await request(h.app).post("/hooks/fan").set(bearer).set("Idempotency-Key", "fan-1").send(body);
    expect([first.status, first.body.code]).toEqual([503, "storage_unavailable"]);
    // The retry replays the two runs the first request stored; it stores none again.
    expect([
      retry.status,
      retry.headers["idempotent-replayed"],
      retry.body.runs.map((r: { index: number; sessionKey: string }) => [r.index, r.sessionKey]),
    ]).toEqual([
      202,
      "true",
      [
        [0, "hook:fan:0"],
        [1, "hook:fan:1"],
      ],
    ]);
    const again = await request(h.app).post("/hooks/fan").set(bearer).set("Idempotency-Key", "fan-1").send(body);
    expect(again.body.runs).toEqual(retry.body.runs);
    // Every run the requests stored has ended (the queue runs them in arrival order); each item ran once.
    await h.host.waitFor(() => h.host.turns.length >= 2);
    for (const r of retry.body.runs as Array<{ runId: string }>) {
      await until(async () => (await request(h.app).get(`/hooks/runs/${r.runId}`).set(bearer)).body.run.status === "succeeded", `run ${r.runId} to succeed`);
    }
    expect(h.host.turns.map((t) => t.sessionKey).sort()).toEqual(["hook:fan:0", "hook:fan:1"]);
  });
});
