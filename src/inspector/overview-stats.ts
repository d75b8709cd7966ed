/**
 * The overview's numbers, computed from the ledger itself (no metrics registry
 * needed): requests per minute by status class and accept latency p50/p99 per
 * minute over the last `minutes`, and runs counted by outcome. A request that
 * waited for its run (`Prefer: wait`) is counted among the requests but not in
 * the accept latency (its latency includes the run): it is counted apart.
 *
 * @example
 *   const s = overviewSeries(inspector.listDeliveries({ limit: 500, since }), Date.now(), 60);
 */
import type { DeliverySummary, RunSummary } from "../core/inspection";

export const STATUS_CLASSES = ["2xx", "3xx", "4xx", "5xx"] as const;

export interface OverviewSeries {
  /** Start of each minute, Unix seconds (uPlot's x axis). */
  minutes: number[];
  /** Requests per minute, one array per status class. */
  byStatus: Record<(typeof STATUS_CLASSES)[number], number[]>;
  /** Accept latency per minute in ms (null where the minute had no request). */
  p50: Array<number | null>;
  p99: Array<number | null>;
  total: number;
  /** Requests that waited for their run (left out of p50/p99). */
  waited: number;
}

/** Nearest-rank percentile of sorted values (p in 0–100). */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]!;
}

export function overviewSeries(deliveries: readonly DeliverySummary[], nowMs: number, minutes: number): OverviewSeries {
  const lastMinute = Math.floor(nowMs / 60_000);
  const first = lastMinute - minutes + 1;
  const latencies: number[][] = Array.from({ length: minutes }, () => []);
  const byStatus = Object.fromEntries(STATUS_CLASSES.map((c) => [c, new Array<number>(minutes).fill(0)])) as OverviewSeries["byStatus"];
  let total = 0;
  let waited = 0;
  for (const d of deliveries) {
    const i = Math.floor(Date.parse(d.receivedAt) / 60_000) - first;
    if (!(i >= 0 && i < minutes)) continue;
    const cls = `${String(d.status).charAt(0)}xx` as (typeof STATUS_CLASSES)[number];
    if (byStatus[cls]) byStatus[cls][i]! += 1;
    total += 1;
    if (d.waited) waited += 1;
    else latencies[i]!.push(d.latencyMs);
  }
  const sorted = latencies.map((l) => l.sort((a, b) => a - b));
  return {
    minutes: Array.from({ length: minutes }, (_, i) => (first + i) * 60),
    byStatus,
    p50: sorted.map((l) => percentile(l, 50)),
    p99: sorted.map((l) => percentile(l, 99)),
    total,
    waited,
  };
}

/** Runs counted by status, most frequent first. */
export function runsByOutcome(runs: readonly RunSummary[]): Array<[string, number]> {
  const counts = new Map<string, number>();
  for (const r of runs) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}
