/** The hosts' registry: one per gateway or plugin activation, process metrics included, plugin declarations checked. */
import { createPrometheusMetrics } from "../../src/host-contract/prometheus-metrics";
import { familyType, parseScrape, sample } from "../helpers/prometheus-scrape";

function recordingLogger() {
  const warnings: Array<[string, Record<string, unknown> | undefined]> = [];
  const noop = () => undefined;
  return { warnings, logger: { debug: noop, info: noop, error: noop, warn: (m: string, meta?: Record<string, unknown>) => void warnings.push([m, meta]) } };
}

describe("createPrometheusMetrics", () => {
  it("keeps one registry per gateway: the same name in two gateways does not clash, and each counts its own", async () => {
    const a = createPrometheusMetrics(recordingLogger());
    const b = createPrometheusMetrics(recordingLogger());
    a.forPlugin("p").counter({ name: "p_things_total", help: "Things." }).inc(2);
    b.forPlugin("p").counter({ name: "p_things_total", help: "Things." }).inc(5);
    expect(sample(parseScrape(await a.render()), "p_things_total")).toBe(2);
    expect(sample(parseScrape(await b.render()), "p_things_total")).toBe(5);
    expect(familyType(parseScrape(await a.render()), "process_resident_memory_bytes")).toBe("GAUGE");
    expect(a.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it("refuses a name declared twice, naming the plugin and the metric", () => {
    const m = createPrometheusMetrics(recordingLogger());
    m.forPlugin("first").counter({ name: "shared_total", help: "x" });
    expect(() => m.forPlugin("second").gauge({ name: "shared_total", help: "x" })).toThrow(/^plugin second: metrics\.gauge\("shared_total"\) refused: /);
  });

  it("refuses an invalid metric name and a collected gauge with labels", () => {
    const m = createPrometheusMetrics(recordingLogger());
    expect(() => m.forPlugin("p").counter({ name: "bad name", help: "x" })).toThrow(/^plugin p: metrics\.counter\("bad name"\) refused: /);
    expect(() => m.forPlugin("p").gauge({ name: "p_g", help: "x", labelNames: ["a"], collect: () => 1 })).toThrow(/a gauge with collect\(\) takes no labels/);
  });

  it("reads a collected gauge at each scrape; a collect() that throws keeps the last value and warns once", async () => {
    const { logger, warnings } = recordingLogger();
    const m = createPrometheusMetrics({ logger });
    let value: number | Error = 3;
    m.forPlugin("p").gauge({
      name: "p_depth",
      help: "x",
      collect: () => {
        if (value instanceof Error) throw value;
        return value;
      },
    });
    expect(sample(parseScrape(await m.render()), "p_depth")).toBe(3);
    value = new Error("store closed");
    expect(sample(parseScrape(await m.render()), "p_depth")).toBe(3);
    expect(sample(parseScrape(await m.render()), "p_depth")).toBe(3);
    expect(warnings).toEqual([["a gauge's collect() failed; its last value is kept", { plugin: "p", metric: "p_depth", error: "store closed" }]]);
    value = 9;
    expect(sample(parseScrape(await m.render()), "p_depth")).toBe(9);
  });

  it("binds labelled series for hot paths", async () => {
    const m = createPrometheusMetrics(recordingLogger());
    const c = m.forPlugin("p").counter({ name: "p_req_total", help: "x", labelNames: ["hook", "status"] });
    const ok = c.labels("wake", "200");
    ok.inc();
    ok.inc();
    m.forPlugin("p")
      .histogram({ name: "p_lat_seconds", help: "x", buckets: [0.1, 1] })
      .observe(0.5);
    const s = parseScrape(await m.render());
    expect(sample(s, "p_req_total", { hook: "wake", status: "200" })).toBe(2);
    expect(s.find((f) => f.name === "p_lat_seconds")!.metrics[0]!.buckets).toEqual({ "0.1": "0", "1": "1", "+Inf": "1" });
  });
});
