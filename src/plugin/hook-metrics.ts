/**
 * The plugin's metrics (SPEC §11), recorded through the host's metrics port
 * (`api.metrics`, host API 1.3): the pipeline reports each answered request and
 * refused signature (PipelineMetrics), the run events give runs by outcome and
 * their duration, and gauges read the queue (and the ledger) at scrape time.
 *
 * Label cardinality stays bounded: `hook` is `wake`, `agent`, `runs`, a
 * configured `match.path`, or a name a mapping accepted (2xx; at most
 * MAX_ADMITTED_HOOKS of those); any other name — a 404, an unauthenticated probe
 * of random paths — is `unknown`, and a path that named no hook is `-`. Each
 * (hook, status) series is bound once and kept, so a request allocates no label
 * object.
 *
 * @example
 *   const m = createHookMetrics({ metrics: api.metrics, emitter, knownHooks: ["github"], queueDepth: () => queue.queuedCount });
 *   createHooksRouter({ ..., metrics: m });
 */
import type { PluginEmitter, PluginEvents } from "../core/events";
import type { PipelineMetrics } from "../core/ports";
import { TERMINAL_RUN_STATUSES } from "../core/runs";
import type { CounterSeries, HostMetrics } from "../host-contract/metrics";

export const METRIC_PREFIX = "inbound_webhooks_";
/** Accept latency buckets (seconds): 0.5 ms to 2.5 s. */
export const ACCEPT_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
/** Run duration buckets (seconds): 100 ms to the default run bound of 10 min. */
export const RUN_BUCKETS: readonly number[] = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600];
/** Hook names outside the configured ones that get their own label once a mapping accepted them. */
export const MAX_ADMITTED_HOOKS = 100;

export interface HookMetricsOptions {
  metrics: HostMetrics;
  emitter: PluginEmitter;
  /** Configured mapped hook names (`match.path`); wake, agent and runs are always known. */
  knownHooks: Iterable<string>;
  /** Schemes of the verified paths: their failure counters start at 0. */
  signatureSchemes?: Iterable<string>;
  /** Runs waiting in the queue, read at scrape time. */
  queueDepth: () => number;
  /** Rows in the delivery ledger, read at scrape time: `inbound_webhooks_ledger_entries` exists only when this is given. */
  ledgerEntries?: () => number;
  /** Monotonic milliseconds for run durations; default performance.now. */
  hrClock?: () => number;
}

export interface HookMetrics extends PipelineMetrics {
  /** Stops following the run events (the instruments stay with the host's registry). */
  close(): void;
}

export function createHookMetrics(opts: HookMetricsOptions): HookMetrics {
  const { metrics, emitter } = opts;
  const hrClock = opts.hrClock ?? (() => performance.now());
  const requests = metrics.counter({
    name: `${METRIC_PREFIX}requests_total`,
    help: "Requests answered on the hook path, by hook and status code.",
    labelNames: ["hook", "status"],
  });
  const accept = metrics.histogram({
    name: `${METRIC_PREFIX}accept_duration_seconds`,
    help: "Time from a hook request's arrival to its accepted answer (wake, agent, mapped hooks).",
    buckets: ACCEPT_BUCKETS,
  });
  const runs = metrics.counter({ name: `${METRIC_PREFIX}runs_total`, help: "Agent runs that ended, by terminal status.", labelNames: ["status"] });
  const runDuration = metrics.histogram({ name: `${METRIC_PREFIX}run_duration_seconds`, help: "Time from a run's start to its end.", buckets: RUN_BUCKETS });
  const replays = metrics.counter({
    name: `${METRIC_PREFIX}idempotent_replays_total`,
    help: "Requests answered with the stored answer of an earlier request with the same idempotency key.",
  });
  const signatureFailures = metrics.counter({
    name: `${METRIC_PREFIX}signature_failures_total`,
    help: "Requests on verified paths whose signature was refused, by scheme.",
    labelNames: ["scheme"],
  });
  metrics.gauge({ name: `${METRIC_PREFIX}run_queue_depth`, help: "Runs waiting in the queue.", collect: opts.queueDepth });
  if (opts.ledgerEntries) metrics.gauge({ name: `${METRIC_PREFIX}ledger_entries`, help: "Deliveries kept in the ledger.", collect: opts.ledgerEntries });

  for (const scheme of new Set(opts.signatureSchemes ?? [])) signatureFailures.labels(scheme).inc(0);
  const runSeries = new Map<string, CounterSeries>();
  for (const status of TERMINAL_RUN_STATUSES) {
    const series = runs.labels(status);
    series.inc(0);
    runSeries.set(status, series);
  }

  // The read routes (`runs…`, `deliveries…`) have fixed labels whatever their status: their 404 is an unknown id, not an unknown hook.
  const known = new Set<string>(["wake", "agent", "runs", "deliveries", ...opts.knownHooks]);
  let admitted = 0;
  const hookLabel = (hook: string | undefined, status: number): string => {
    if (hook === undefined) return "-";
    if (known.has(hook)) return hook;
    if (status >= 200 && status < 300 && admitted < MAX_ADMITTED_HOOKS) {
      admitted++;
      known.add(hook);
      return hook;
    }
    return "unknown";
  };
  /** hook label → status → series, bound on first use. */
  const series = new Map<string, Map<number, CounterSeries>>();
  const requestSeries = (label: string, status: number): CounterSeries => {
    let byStatus = series.get(label);
    if (!byStatus) series.set(label, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) byStatus.set(status, (s = requests.labels(label, String(status))));
    return s;
  };

  const startedAt = new Map<string, number>();
  const onStarted: PluginEvents["run:started"] = (e) => void startedAt.set(e.runId, hrClock());
  const onFinished: PluginEvents["run:finished"] = (e) => {
    let s = runSeries.get(e.status);
    if (!s) runSeries.set(e.status, (s = runs.labels(e.status)));
    s.inc();
    const t0 = startedAt.get(e.runId);
    if (t0 === undefined) return;
    startedAt.delete(e.runId);
    runDuration.observe(Math.max(0, hrClock() - t0) / 1000);
  };
  emitter.on("run:started", onStarted);
  emitter.on("run:finished", onFinished);

  return {
    answered(hook, status, seconds, accepted) {
      requestSeries(hookLabel(hook, status), status).inc();
      if (!accepted) return;
      accept.observe(seconds);
      if (accepted.replayed) replays.inc();
    },
    signatureFailed(scheme) {
      signatureFailures.labels(scheme).inc();
    },
    close() {
      emitter.off("run:started", onStarted);
      emitter.off("run:finished", onFinished);
      startedAt.clear();
    },
  };
}
