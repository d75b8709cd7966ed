/**
 * The plugin's recorder over a real gateway registry (prom-client): bounded hook
 * labels, run outcomes and durations from the run events, and the ledger gauge
 * only when the ledger is wired.
 */
import { createPluginEmitter } from "../../src/core/events";
import { createPrometheusMetrics } from "../../src/host-contract/prometheus-metrics";
import { createHookMetrics, MAX_ADMITTED_HOOKS } from "../../src/plugin/hook-metrics";
import { familyType, histogramCount, labelValues, parseScrape, sample } from "../helpers/prometheus-scrape";

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

function setup(extra: { ledgerEntries?: () => number } = {}) {
  const registry = createPrometheusMetrics({ logger: silent });
  const emitter = createPluginEmitter();
  let now = 1000;
  const recorder = createHookMetrics({
    metrics: registry.forPlugin("inbound-webhooks"),
    emitter,
    knownHooks: ["github"],
    signatureSchemes: ["github", "github"],
    queueDepth: () => 7,
    hrClock: () => now,
    ...extra,
  });
  return { recorder, emitter, scrape: async () => parseScrape(await registry.render()), advance: (ms: number) => void (now += ms) };
}

const REQUESTS = "inbound_webhooks_requests_total";

describe("createHookMetrics", () => {
  it('labels wake, agent, runs, deliveries and configured paths by name, whatever the status; a path naming no hook is "-"; other names that were not accepted are "unknown"', async () => {
    const { recorder, scrape } = setup();
    recorder.answered("wake", 200, 0.001, { replayed: false });
    recorder.answered("runs", 404, 0.001);
    recorder.answered("deliveries", 404, 0.001);
    recorder.answered("github", 401, 0.001);
    recorder.answered(undefined, 404, 0.001);
    recorder.answered("random-name", 404, 0.001);
    recorder.answered("random-name", 401, 0.001);
    const s = await scrape();
    expect(sample(s, REQUESTS, { hook: "wake", status: "200" })).toBe(1);
    expect(sample(s, REQUESTS, { hook: "runs", status: "404" })).toBe(1);
    // Regression: a 404 of the ledger route (an unknown delivery id) was "deliveries" only after some 2xx listing had admitted the name, "unknown" before.
    expect(sample(s, REQUESTS, { hook: "deliveries", status: "404" })).toBe(1);
    expect(sample(s, REQUESTS, { hook: "github", status: "401" })).toBe(1);
    expect(sample(s, REQUESTS, { hook: "-", status: "404" })).toBe(1);
    expect(sample(s, REQUESTS, { hook: "unknown", status: "404" })).toBe(1);
    expect(sample(s, REQUESTS, { hook: "unknown", status: "401" })).toBe(1);
    expect(labelValues(s, REQUESTS, "hook")).not.toContain("random-name");
  });

  it(`a name a mapping accepted gets its own label, for at most ${MAX_ADMITTED_HOOKS} such names; later ones are "unknown"`, async () => {
    const { recorder, scrape } = setup();
    for (let i = 0; i < MAX_ADMITTED_HOOKS + 5; i++) recorder.answered(`catch-all-${i}`, 202, 0.002, { replayed: false });
    recorder.answered("catch-all-0", 404, 0.001);
    const s = await scrape();
    const hooks = new Set(labelValues(s, REQUESTS, "hook"));
    expect(hooks.size).toBe(MAX_ADMITTED_HOOKS + 1);
    expect(sample(s, REQUESTS, { hook: "unknown", status: "202" })).toBe(5);
    expect(sample(s, REQUESTS, { hook: "catch-all-0", status: "404" })).toBe(1);
  });

  it("observes accept latency only for accepted answers and counts replays", async () => {
    const { recorder, scrape } = setup();
    recorder.answered("wake", 200, 0.0004, { replayed: false });
    recorder.answered("wake", 200, 0.0004, { replayed: true });
    recorder.answered("wake", 401, 0.0001);
    recorder.signatureFailed("github");
    const s = await scrape();
    expect(histogramCount(s, "inbound_webhooks_accept_duration_seconds")).toBe(2);
    expect(sample(s, "inbound_webhooks_idempotent_replays_total")).toBe(1);
    expect(sample(s, "inbound_webhooks_signature_failures_total", { scheme: "github" })).toBe(1);
  });

  it("counts runs by terminal status and observes the duration of runs it saw start; stops following after close()", async () => {
    const { recorder, emitter, scrape, advance } = setup();
    const base = { sessionKey: "hook:a", name: "a" };
    emitter.emit("run:started", { runId: "r1", ...base });
    advance(1500);
    emitter.emit("run:finished", { runId: "r1", ...base, status: "succeeded", delivered: true });
    // Recovered as interrupted: never started in this process, so counted without a duration.
    emitter.emit("run:finished", { runId: "r0", ...base, status: "interrupted", delivered: false });
    let s = await scrape();
    expect(sample(s, "inbound_webhooks_runs_total", { status: "succeeded" })).toBe(1);
    expect(sample(s, "inbound_webhooks_runs_total", { status: "interrupted" })).toBe(1);
    expect(histogramCount(s, "inbound_webhooks_run_duration_seconds")).toBe(1);
    expect(s.find((f) => f.name === "inbound_webhooks_run_duration_seconds")!.metrics[0]!.sum).toBe("1.5");
    expect(sample(s, "inbound_webhooks_run_queue_depth")).toBe(7);

    recorder.close();
    emitter.emit("run:finished", { runId: "r2", ...base, status: "failed", delivered: false });
    s = await scrape();
    expect(sample(s, "inbound_webhooks_runs_total", { status: "failed" })).toBe(0);
  });

  it("registers inbound_webhooks_ledger_entries only when the ledger is wired", async () => {
    expect(familyType(await setup().scrape(), "inbound_webhooks_ledger_entries")).toBeUndefined();
    const wired = setup({ ledgerEntries: () => 42 });
    expect(sample(await wired.scrape(), "inbound_webhooks_ledger_entries")).toBe(42);
  });
});
