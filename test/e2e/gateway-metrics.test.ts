/**
 * `GET /metrics` on the real gateway process (SPEC §11): operator token only, and
 * Prometheus text (parsed with parse-prometheus-text-format, as promtool is not
 * installed) whose counters and histograms move with traffic sent through the
 * real hook pipeline.
 */
import { Webhooks } from "@octokit/webhooks";
import { startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { familyType, histogramCount, labelValues, parseScrape, sample, type Scrape } from "../helpers/prometheus-scrape";
import { until } from "../helpers/until";
import { GATEWAY_TOKEN, HOOK_TOKEN, hooksConfig, PLUGIN_NOT_BUILT, postJson } from "./gateway-setup";

const SIGNING_SECRET = "e2e-metrics-signing-secret";
const config = hooksConfig({
  hooks: {
    mappings: [
      { id: "signed", match: { path: "signed" }, action: "wake", textTemplate: "signed {{ payload.n }}", verify: { scheme: "github", secret: SIGNING_SECRET } },
    ],
  },
});

let gw: GatewayProcess;
beforeAll(async () => {
  if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
  gw = await startGateway({ config });
});
afterAll(() => gw?.stop());

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).not.toContain(HOOK_TOKEN);
  expect(text).not.toContain(GATEWAY_TOKEN);
  return parseScrape(text);
}

const REQUESTS = "inbound_webhooks_requests_total";
const ACCEPT = "inbound_webhooks_accept_duration_seconds";

describe("GET /metrics on the real gateway", () => {
  test("without the operator token → 401 unauthorized; with a wrong one → 401; with it → Prometheus text", async () => {
    const none = await fetch(`${gw.baseUrl}/metrics`);
    expect([none.status, ((await none.json()) as { code: string }).code]).toEqual([401, "unauthorized"]);
    const wrong = await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}x` } });
    expect([wrong.status, ((await wrong.json()) as { code: string }).code]).toEqual([401, "unauthorized"]);
    const hookToken = await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    expect(hookToken.status).toBe(401);

    const ok = await fetch(`${gw.baseUrl}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    const s = parseScrape(await ok.text());
    expect(familyType(s, "process_cpu_user_seconds_total")).toBe("COUNTER");
    expect(familyType(s, "nodejs_eventloop_lag_seconds")).toBe("GAUGE");
    expect(familyType(s, REQUESTS)).toBe("COUNTER");
    expect(familyType(s, ACCEPT)).toBe("HISTOGRAM");
    expect(familyType(s, "inbound_webhooks_run_duration_seconds")).toBe("HISTOGRAM");
    expect(familyType(s, "inbound_webhooks_run_queue_depth")).toBe("GAUGE");
    expect(familyType(s, "inbound_webhooks_idempotent_replays_total")).toBe("COUNTER");
    // Series that exist before any traffic, so rate() works from the first scrape.
    expect(labelValues(s, "inbound_webhooks_runs_total", "status").sort()).toEqual(["failed", "interrupted", "succeeded", "timed_out"]);
    expect(sample(s, "inbound_webhooks_signature_failures_total", { scheme: "github" })).toBe(0);
    expect(familyType(s, "inbound_webhooks_ledger_entries")).toBe("GAUGE");
  });

  test("requests, accept latency, runs, signature failures, idempotent replays and ledger entries move with traffic", async () => {
    const before = await scrape();

    expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: "one" })).status).toBe(200);
    const agent = await postJson(`${gw.baseUrl}/hooks/agent`, { message: "count me", name: "metrics" });
    expect(agent.status).toBe(202);
    // A repeated idempotency key: the second answer is the stored one.
    const keyed = (text: string) =>
      fetch(`${gw.baseUrl}/hooks/wake`, {
        method: "POST",
        headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", "idempotency-key": "metrics-key-1" },
        body: JSON.stringify({ text }),
      });
    expect((await keyed("keyed")).status).toBe(200);
    const replay = await keyed("keyed");
    expect([replay.status, replay.headers.get("idempotent-replayed")]).toEqual([200, "true"]);
    // An unknown mapped name (404) and a bad signature on the verified path.
    expect((await postJson(`${gw.baseUrl}/hooks/no-such-hook`, { x: 1 })).status).toBe(404);
    const body = JSON.stringify({ n: 1 });
    const badSig = await fetch(`${gw.baseUrl}/hooks/signed`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": await new Webhooks({ secret: "not-the-secret" }).sign(body) },
      body,
    });
    expect(badSig.status).toBe(401);
    const goodSig = await fetch(`${gw.baseUrl}/hooks/signed`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-hub-signature-256": await new Webhooks({ secret: SIGNING_SECRET }).sign(body) },
      body,
    });
    expect(goodSig.status).toBe(200);

    let after = await scrape();
    await until(async () => {
      after = await scrape();
      const ran =
        sample(after, "inbound_webhooks_runs_total", { status: "succeeded" }) > sample(before, "inbound_webhooks_runs_total", { status: "succeeded" });
      // The ledger writes each turn's rows just after the answers went out.
      return ran && sample(after, "inbound_webhooks_ledger_entries") - sample(before, "inbound_webhooks_ledger_entries") >= 7;
    }, "the agent run to be counted as succeeded and the seven requests to be in the ledger");

    const delta = (name: string, labels: Record<string, string> = {}) => sample(after, name, labels) - sample(before, name, labels);
    expect(delta(REQUESTS, { hook: "wake", status: "200" })).toBe(3);
    expect(delta(REQUESTS, { hook: "agent", status: "202" })).toBe(1);
    expect(delta(REQUESTS, { hook: "unknown", status: "404" })).toBe(1);
    expect(delta(REQUESTS, { hook: "signed", status: "401" })).toBe(1);
    expect(delta(REQUESTS, { hook: "signed", status: "200" })).toBe(1);
    // wake, agent, the keyed wake, its replay and the signed wake were accepted.
    expect(histogramCount(after, ACCEPT) - histogramCount(before, ACCEPT)).toBe(5);
    expect(delta("inbound_webhooks_runs_total", { status: "succeeded" })).toBe(1);
    expect(histogramCount(after, "inbound_webhooks_run_duration_seconds") - histogramCount(before, "inbound_webhooks_run_duration_seconds")).toBe(1);
    expect(delta("inbound_webhooks_signature_failures_total", { scheme: "github" })).toBe(1);
    expect(delta("inbound_webhooks_idempotent_replays_total")).toBe(1);
    expect(sample(after, "inbound_webhooks_run_queue_depth")).toBe(0);
    // Every request that reached a hook route is a ledger row: 7 sent, 7 recorded.
    expect(delta("inbound_webhooks_ledger_entries")).toBe(7);
  });

  test('probes of random hook names do not create label values: they count as hook="unknown"', async () => {
    const before = await scrape();
    for (const name of ["probe-a", "probe-b", "probe-c"]) {
      expect((await postJson(`${gw.baseUrl}/hooks/${name}`, { x: 1 }, "wrong-token-wrong-token-0000")).status).toBe(401);
    }
    const after = await scrape();
    expect(labelValues(after, REQUESTS, "hook").filter((h) => h.startsWith("probe-"))).toEqual([]);
    expect(sample(after, REQUESTS, { hook: "unknown", status: "401" }) - sample(before, REQUESTS, { hook: "unknown", status: "401" })).toBe(3);
  });
});
