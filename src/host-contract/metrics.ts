/**
 * Metrics (host API 1.3): the small port a plugin records through. The host owns
 * the registry and its exposition (the embedded gateway serves Prometheus text at
 * `GET /metrics` with prom-client); a plugin only declares instruments and moves
 * them. `PluginApi.metrics` is optional: on a host without it a plugin records
 * nothing.
 *
 * Hot paths bind a series once with `labels(...)` and keep it: the bound series
 * takes no label object per call.
 *
 * @example
 *   const requests = api.metrics?.counter({ name: "my_plugin_requests_total", help: "Requests by status.", labelNames: ["status"] });
 *   const ok = requests?.labels("200");
 *   ok?.inc();
 */

/** Common definition of an instrument. */
export interface MetricDefinition {
  /** Prometheus metric name (`[a-zA-Z_:][a-zA-Z0-9_:]*`), prefixed with the plugin's own namespace by convention. Unique per host. */
  name: string;
  /** One sentence, shown as `# HELP`. */
  help: string;
  /** Label names, in the order `labels(...)` takes their values. None: an unlabelled instrument. */
  labelNames?: readonly string[];
}

export interface HistogramDefinition extends MetricDefinition {
  /** Upper bounds of the buckets, ascending (the host adds `+Inf`). */
  buckets: readonly number[];
}

export interface GaugeDefinition extends MetricDefinition {
  /**
   * Read at each scrape (unlabelled gauges only): the gauge's value is whatever this
   * returns then. A callback that throws leaves the last value.
   */
  collect?: () => number;
}

/** One series of a counter (an unlabelled counter is its own series). */
export interface CounterSeries {
  /** Adds `value` (default 1, must be ≥ 0). */
  inc(value?: number): void;
}

export interface MetricCounter extends CounterSeries {
  /** The series of these label values (in `labelNames` order); keep it on hot paths. */
  labels(...values: string[]): CounterSeries;
}

export interface HistogramSeries {
  /** Records one observation (seconds, bytes …: the unit the name says). */
  observe(value: number): void;
}

export interface MetricHistogram extends HistogramSeries {
  labels(...values: string[]): HistogramSeries;
}

export interface GaugeSeries {
  set(value: number): void;
}

export interface MetricGauge extends GaugeSeries {
  labels(...values: string[]): GaugeSeries;
}

/**
 * What a host offers (`PluginApi.metrics`). Declaring a name twice, an invalid name
 * or label name throws an Error naming it.
 */
export interface HostMetrics {
  counter(definition: MetricDefinition): MetricCounter;
  histogram(definition: HistogramDefinition): MetricHistogram;
  gauge(definition: GaugeDefinition): MetricGauge;
}
