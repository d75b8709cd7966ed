/**
 * Reads a Prometheus text exposition with parse-prometheus-text-format (the check
 * that stands in for `promtool check metrics`: text it cannot parse fails the test)
 * and looks samples up by name and labels.
 */
import parsePrometheusTextFormat from "parse-prometheus-text-format";

export type Scrape = ReturnType<typeof parsePrometheusTextFormat>;

export function parseScrape(text: string): Scrape {
  return parsePrometheusTextFormat(text);
}

function family(scrape: Scrape, name: string) {
  return scrape.find((f) => f.name === name);
}

function matches(labels: Record<string, string> | undefined, want: Record<string, string>): boolean {
  return Object.entries(want).every(([k, v]) => labels?.[k] === v);
}

/** The value of a counter or gauge sample (0 when the series does not exist yet). */
export function sample(scrape: Scrape, name: string, labels: Record<string, string> = {}): number {
  const s = family(scrape, name)?.metrics.find((m) => matches(m.labels, labels));
  return s?.value === undefined ? 0 : Number(s.value);
}

/** `_count` of a histogram (0 when absent). */
export function histogramCount(scrape: Scrape, name: string): number {
  const s = family(scrape, name)?.metrics[0];
  return s?.count === undefined ? 0 : Number(s.count);
}

/** Every label value `label` takes in the family `name`. */
export function labelValues(scrape: Scrape, name: string, label: string): string[] {
  return (family(scrape, name)?.metrics ?? []).map((m) => m.labels?.[label] ?? "");
}

/** The type of a family, or undefined when it is missing. */
export function familyType(scrape: Scrape, name: string): string | undefined {
  return family(scrape, name)?.type;
}
