/**
 * The host side of the metrics port over prom-client (SPEC §11), for both hosts:
 * one `Registry` per host instance — never prom-client's global one, so several
 * gateways or plugin activations in one process (tests, OpenClaw's reloads) keep
 * their own — with the default process metrics; each plugin declares its
 * instruments through `forPlugin(id)` (`PluginApi.metrics`), and a refusal names
 * the plugin and the metric. The embedded gateway's `GET /metrics`
 * (gateway/http/create-app.ts) and OpenClaw's `/inbound-webhooks/metrics`
 * (hosts/openclaw/operator-surface.ts) render it.
 *
 * @example
 *   const metrics = createPrometheusMetrics({ logger });
 *   loadPlugins({ ..., metrics: metrics.forPlugin });
 *   res.type(metrics.contentType).send(await metrics.render());
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { HostLogger } from "./host-api";
import type { GaugeDefinition, HistogramDefinition, HostMetrics, MetricDefinition } from "./metrics";

export interface PrometheusMetrics {
  /** The metrics port handed to one plugin; its errors name the plugin. */
  forPlugin(pluginId: string): HostMetrics;
  /** `text/plain; version=0.0.4; charset=utf-8` (Prometheus text format). */
  readonly contentType: string;
  /** The exposition of every metric: process metrics and each plugin's. */
  render(): Promise<string>;
}

/** Calls prom-client, turning its errors into one sentence naming the plugin and the metric. */
function declare<T>(pluginId: string, kind: string, name: unknown, make: () => T): T {
  try {
    return make();
  } catch (e) {
    throw new Error(`plugin ${pluginId}: metrics.${kind}(${JSON.stringify(name)}) refused: ${(e as Error).message}`);
  }
}

const definitionOf = (d: MetricDefinition, registers: Registry[]) => ({ name: d.name, help: d.help, labelNames: [...(d.labelNames ?? [])], registers });

export function createPrometheusMetrics(opts: { logger: HostLogger }): PrometheusMetrics {
  const register = new Registry();
  collectDefaultMetrics({ register });
  const registers = [register];

  const forPlugin = (pluginId: string): HostMetrics => ({
    counter: (d: MetricDefinition) => declare(pluginId, "counter", d?.name, () => new Counter(definitionOf(d, registers))),
    histogram: (d: HistogramDefinition) =>
      declare(pluginId, "histogram", d?.name, () => new Histogram({ ...definitionOf(d, registers), buckets: [...d.buckets] })),
    gauge: (d: GaugeDefinition) =>
      declare(pluginId, "gauge", d?.name, () => {
        const read = d.collect;
        if (read && (d.labelNames?.length ?? 0) > 0) throw new Error("a gauge with collect() takes no labels");
        let warned = false;
        return new Gauge({
          ...definitionOf(d, registers),
          ...(read
            ? {
                collect(this: Gauge) {
                  try {
                    this.set(read());
                  } catch (e) {
                    if (!warned)
                      opts.logger.warn("a gauge's collect() failed; its last value is kept", { plugin: pluginId, metric: d.name, error: (e as Error).message });
                    warned = true;
                  }
                },
              }
            : {}),
        });
      }),
  });

  return {
    forPlugin,
    contentType: register.contentType,
    render: () => register.metrics(),
  };
}
