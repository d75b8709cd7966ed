/** Types of parse-prometheus-text-format (the package ships none): prom2json-shaped output. */
declare module "parse-prometheus-text-format" {
  interface ParsedSample {
    labels?: Record<string, string>;
    /** Counters and gauges. */
    value?: string;
    /** Histograms: upper bound → cumulative count. */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface ParsedFamily {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: ParsedSample[];
  }
  function parsePrometheusTextFormat(text: string): ParsedFamily[];
  export = parsePrometheusTextFormat;
}
