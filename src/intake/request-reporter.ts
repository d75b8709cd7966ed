/**
 * Logs and events for each decision (STYLE §10): request id, hook, status,
 * code, body size and latency. Never tokens, never payloads; the URL is logged
 * with any `?token=` redacted. A refusal's line (and an aborted request's) is written once per
 * client, code and minute, its repeats counted in one line after it (refusal-log.ts).
 */
import type { ErrorCode } from "../core/errors";
import type { PluginEmitter } from "../core/events";
import type { ModuleLogger } from "../core/logger";
import type { PipelineMetrics } from "../core/ports";
import type { AcceptedKind, Outcome } from "../core/outcome";
import { createRefusalLog } from "./refusal-log";

/** What the pipeline knows about a request while it runs. */
export interface RequestRecord {
  requestId: string;
  /** Milliseconds from the clock when the request entered the router. */
  startedAt: number;
  /** `performance.now()` when the request entered the router: the monotonic, sub-millisecond start metrics measure from. */
  startedHr?: number;
  client: string;
  method: string;
  /** Original URL, token redacted. */
  url: string;
  hook?: string;
  bodyBytes?: number;
  /** Set once a decision has been reported (each request is reported once). */
  reported: boolean;
}

export interface RequestReporter {
  /** Logs, counts and announces an answered request, from its one Outcome. */
  report(record: RequestRecord, status: number, outcome: Outcome): void;
  /** The client went away before a response was sent. */
  aborted(record: RequestRecord): void;
}

export interface RequestReporterOptions {
  logger: ModuleLogger;
  emitter: PluginEmitter;
  clock: () => number;
  /** Told of every answered request (not of aborted ones). */
  metrics?: PipelineMetrics;
  /** Monotonic milliseconds, as `startedHr` was taken; default performance.now. */
  hrClock?: () => number;
}

export function createRequestReporter(options: RequestReporterOptions): RequestReporter {
  const { logger, emitter, clock, metrics } = options;
  const hrClock = options.hrClock ?? (() => performance.now());
  // Refusals are logged once per client, code and window, with a count (refusal-log.ts): anyone can send them.
  const refusals = createRefusalLog({ logger, clock });
  /** Seconds the request took: monotonic when its start was marked, else from the clock. */
  const seconds = (record: RequestRecord): number =>
    Math.max(0, record.startedHr !== undefined ? hrClock() - record.startedHr : clock() - record.startedAt) / 1000;

  const base = (record: RequestRecord, status: number) => ({
    requestId: record.requestId,
    hook: record.hook,
    status,
    bytes: record.bodyBytes ?? 0,
    latencyMs: Math.max(0, clock() - record.startedAt),
    client: record.client,
  });

  function accepted(record: RequestRecord, status: number, o: Outcome & { kind: AcceptedKind }): void {
    const runId = o.runIds.length === 1 && o.kind === "agent" ? o.runIds[0] : undefined;
    const replayed = o.replayed === true ? true : undefined;
    metrics?.answered(record.hook, status, seconds(record), { replayed: replayed === true });
    // Per request: at debug (the decision is the 2xx itself). Refusals stay at warn/error. No meta is built for a discarded line.
    if (logger.isLevelEnabled?.("debug") !== false) {
      logger.debug("hook request accepted", { ...base(record, status), kind: o.kind, mappingId: o.mappingId, runId, replayed });
    }
    if (emitter.listenerCount("request:accepted") === 0) return;
    emitter.emit("request:accepted", { requestId: record.requestId, hook: record.hook ?? "", mappingId: o.mappingId, status, kind: o.kind, runId, replayed });
  }

  function rejected(record: RequestRecord, status: number, code: ErrorCode): void {
    metrics?.answered(record.hook, status, seconds(record));
    refusals.refused({ ...base(record, status), code, method: record.method, url: record.url });
    emitter.emit("request:rejected", { requestId: record.requestId, hook: record.hook, status, code });
  }

  return {
    report(record, status, o) {
      if (record.reported) return;
      record.reported = true;
      if (o.kind === "refused") return rejected(record, status, o.code ?? "internal_error");
      if (o.kind === "served") {
        metrics?.answered(record.hook, status, seconds(record));
        logger.debug("run status served", base(record, status));
        return;
      }
      accepted(record, status, o as Outcome & { kind: AcceptedKind });
    },
    aborted(record) {
      if (record.reported) return;
      record.reported = true;
      // Folded as refusals are: anyone can abort a request (a partial body, then the connection closed).
      refusals.aborted({ ...base(record, 0), method: record.method, url: record.url });
    },
  };
}
