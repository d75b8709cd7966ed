/**
 * Regression (issue 20): the hook's name was worked out in six places with different
 * normalisation, so with a per-mapping `rateLimit` of 2 on `a/b`, `/hooks/a/b`,
 * `/hooks/a//b` and `/hooks/a/b/` all got through, and the ledger labelled one hook
 * both `a/b` and `a//b`. SPEC §4.1 "One identity per hook": every spelling is one
 * hook for the rate limit, the idempotency scope, the ledger's `hook`, the metric
 * label and the log; `..` and an encoded `/` name no hook (404).
 *
 * Through the whole plugin (router → mapping engine → run queue → ledger → metrics)
 * on the fake host, with the real gateway metrics registry.
 */
import request from "supertest";
import { createPrometheusMetrics } from "../../src/host-contract/prometheus-metrics";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { labelValues, parseScrape, sample } from "../helpers/prometheus-scrape";
import { until } from "../helpers/until";
import { postRequestTarget, serve } from "./support/raw-http";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const SPELLINGS = ["/hooks/a/b", "/hooks/a//b", "/hooks/a/b/", "/hooks/%61/b", "/hooks/a/./b"];
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** A request with its path sent byte for byte (supertest's URL parsing would resolve `.` and `..`). */
async function rawPost(app: PluginApp["app"], path: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  const served = await serve(app);
  try {
    return await postRequestTarget(served.port, path, { ...headers, "content-type": "application/json" }, body);
  } finally {
    await served.close();
  }
}

describe("one hook spelled five ways bypasses its rate limit (issue 20)", () => {
  let plugin: PluginApp;
  let registry: ReturnType<typeof createPrometheusMetrics>;
  beforeEach(async () => {
    registry = createPrometheusMetrics({ logger: silent });
    plugin = await startPluginApp({
      metrics: registry.forPlugin("inbound-webhooks"),
      hooks: {
        rateLimit: { enabled: false },
        mappings: [{ id: "ab", match: { path: "a/b" }, action: "agent", messageTemplate: "n={{ payload.n }}", rateLimit: { max: 2, windowSeconds: 60 } }],
      },
    });
  });
  afterEach(() => plugin.close());

  it("five spellings of a/b are one hook: two accepted, three refused 429 by the mapping's limit", async () => {
    const statuses: number[] = [];
    for (const [i, path] of SPELLINGS.entries()) statuses.push((await rawPost(plugin.app, path, AUTH, JSON.stringify({ n: i }))).status);
    expect(statuses).toEqual([202, 202, 429, 429, 429]);
  });

  it("the ledger and the metrics label every spelling a/b, never a//b or %61/b", async () => {
    for (const [i, path] of SPELLINGS.entries()) await rawPost(plugin.app, path, AUTH, JSON.stringify({ n: i }));
    const listed = async () => (await request(plugin.app).get("/hooks/deliveries").set(AUTH)).body.deliveries as Array<{ hook?: string }>;
    await until(async () => (await listed()).length >= SPELLINGS.length, "five ledger rows");
    expect(new Set((await listed()).map((d) => d.hook))).toEqual(new Set(["a/b"]));
    const scrape = parseScrape(await registry.render());
    const hooks = labelValues(scrape, "inbound_webhooks_requests_total", "hook");
    expect(new Set(hooks.filter((h) => h !== "deliveries"))).toEqual(new Set(["a/b"]));
    expect(sample(scrape, "inbound_webhooks_requests_total", { hook: "a/b", status: "202" })).toBe(2);
  });

  it("the log names the hook a/b for each spelling", async () => {
    for (const path of SPELLINGS.slice(2)) await rawPost(plugin.app, path, AUTH, JSON.stringify({ n: 1 }));
    await rawPost(plugin.app, "/hooks/a//b", AUTH, JSON.stringify({ n: 1 }));
    const hooks = plugin.host.logs.filter((l) => l.message === "hook request rejected").map((l) => (l.meta as { hook?: string }).hook);
    expect(hooks.length).toBeGreaterThan(0);
    expect(new Set(hooks)).toEqual(new Set(["a/b"]));
  });

  it("one idempotency key on two spellings is one delivery: the second is the stored answer, replayed", async () => {
    const key = { ...AUTH, "Idempotency-Key": "evt-1" };
    const first = await rawPost(plugin.app, "/hooks/a/b", key, JSON.stringify({ n: 1 }));
    const second = await rawPost(plugin.app, "/hooks/%61//b/", key, JSON.stringify({ n: 1 }));
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(JSON.parse(second.body).runId).toBe(JSON.parse(first.body).runId);
    expect(second.body).toBe(first.body);
  });

  it.each([
    ["/hooks/a/../b", "contains a .. segment"],
    ["/hooks/a/%2E%2E/b", "contains a .. segment"],
    ["/hooks/a%2Fb", "encoded /"],
    ["/hooks/a%2fb", "encoded /"],
  ])("%s names no hook: 404 not_found (%s)", async (path, sentence) => {
    const res = await rawPost(plugin.app, path, AUTH, JSON.stringify({ n: 1 }));
    expect(res.status).toBe(404);
    const body = JSON.parse(res.body) as { code: string; error: string };
    expect(body.code).toBe("not_found");
    expect(body.error).toContain(sentence);
  });
});
