/**
 * Regression (issue 22 item 7): amplification. One 256 KB request to a mapping with
 * a 100-item `forEach` and `{{ payload | json }}` rendered 25 MB of messages, 100
 * runs and 100 session files, and blocked the loop 2.5–4 s. Now one request renders
 * at most `hooks.maxRenderedBytes` (default 1 MiB) of messages across all its
 * actions; beyond it 400 `render_too_large` naming the limit, refused before any
 * run is stored (nothing of the request takes effect). The render time is a bench
 * figure (bench/run.js, "fan-out of payload | json").
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const MAPPINGS = [
  { id: "amp", match: { path: "amp" }, forEach: "events", messageTemplate: "event {{ index }}: {{ payload | json }}", deliver: false },
  { id: "one", match: { path: "one" }, messageTemplate: "{{ payload.a }}{{ payload.a }}{{ payload.a }}{{ payload.a }}{{ payload.a }}", deliver: false },
];

let h: PluginApp;
afterEach(() => h.close());

async function runsListed(): Promise<number> {
  const res = await request(h.app).get("/hooks/runs?limit=200").set(bearer);
  expect(res.status).toBe(200);
  return (res.body.runs as unknown[]).length;
}

describe("the rendered bytes of one request are bounded", () => {
  it("256 KB with a 100-item forEach and {{ payload | json }} rendered 25 MB and 100 runs: now 400 render_too_large and no run stored", async () => {
    h = await startPluginApp({ hooks: { mappings: MAPPINGS } });
    const body = { events: Array.from({ length: 100 }, (_, i) => ({ i })), pad: "x".repeat(250_000) };
    const res = await request(h.app).post("/hooks/amp").set(bearer).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      ok: false,
      code: "render_too_large",
      error: "The templates and messages of this request render to more than 1048576 bytes (hooks.maxRenderedBytes); nothing was accepted.",
    });
    expect(await runsListed()).toBe(0);
    expect(h.host.turns).toHaveLength(0);
  });

  it("up to the limit the batch is accepted; past it the whole batch is refused, with nothing queued", async () => {
    h = await startPluginApp({ hooks: { maxRenderedBytes: 4096, mappings: MAPPINGS } });
    // Each message is "event N: " (9 bytes) + the payload's JSON.
    const within = { events: [1, 2, 3, 4], pad: "y".repeat(980) };
    const perMessage = 9 + JSON.stringify(within).length;
    expect(perMessage * 4).toBeLessThanOrEqual(4096);
    const ok = await request(h.app).post("/hooks/amp").set(bearer).send(within);
    expect([ok.status, ok.body.runs.length]).toEqual([202, 4]);
    const over = await request(h.app)
      .post("/hooks/amp")
      .set(bearer)
      .send({ events: [1, 2, 3, 4], pad: "y".repeat(1000) });
    expect([over.status, over.body.code]).toEqual([400, "render_too_large"]);
    expect(await runsListed()).toBe(4);
  });

  it("a single action counts too: a template repeating a 250 KB field five times is refused, in UTF-8 bytes", async () => {
    h = await startPluginApp({ hooks: { mappings: MAPPINGS } });
    const res = await request(h.app)
      .post("/hooks/one")
      .set(bearer)
      .send({ a: "é".repeat(110_000) });
    expect([res.status, res.body.code]).toEqual([400, "render_too_large"]);
    expect(await runsListed()).toBe(0);
  });
});
