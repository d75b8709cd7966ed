/**
 * Logs and events for each decision (STYLE §10): request id, hook, status,
 * code, body size and latency. Never tokens, never payloads; the URL is logged
 * with any `?token=` redacted.
 */
import type { ErrorCode } from "../core/errors";
import type { PluginEmitter } from "../core/events";
import type { ModuleLogger } from "../core/logger";
import type { PipelineMetrics } from "../core/ports";

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

export interface AcceptedInfo {
  kind: "wake" | "agent" | "skip" | "pong" | "batch" | "handshake";
  mappingId?: string;
  runId?: string;
  replayed?: boolean;
}

export interface RequestReporter {
  accepted(rec: RequestRecord, status: number, info: AcceptedInfo): void;
  rejected(rec: RequestRecord, status: number, code: ErrorCode): void;
  /** A run-status lookup that was answered. */
  served(rec: RequestRecord, status: number): void;
  /** The client went away before a response was sent. */
  aborted(rec: RequestRecord): void;
}

/** Codes for responses written outside the renderer (e.g. by the rate limiter). */
const CODE_BY_STATUS: Record<number, ErrorCode> = {
  400: "invalid_payload",
  401: "unauthorized",
  404: "not_found",
  405: "method_not_allowed",
  408: "request_timeout",
  413: "payload_too_large",
  415: "unsupported_media_type",
  422: "idempotency_key_reused",
  429: "too_many_requests",
  503: "overloaded",
};

export function codeForStatus(status: number): ErrorCode {
  return CODE_BY_STATUS[status] ?? "internal_error";
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
  /** Seconds the request took: monotonic when its start was marked, else from the clock. */
  const seconds = (rec: RequestRecord): number => Math.max(0, rec.startedHr !== undefined ? hrClock() - rec.startedHr : clock() - rec.startedAt) / 1000;

  const base = (rec: RequestRecord, status: number) => ({
    requestId: rec.requestId,
    hook: rec.hook,
    status,
    bytes: rec.bodyBytes ?? 0,
    latencyMs: Math.max(0, clock() - rec.startedAt),
    client: rec.client,
  });

  return {
    accepted(rec, status, info) {
      if (rec.reported) return;
      rec.reported = true;
      metrics?.answered(rec.hook, status, seconds(rec), { replayed: info.replayed === true });
      // Per request: at debug (the decision is the 2xx itself). Refusals stay at warn/error. No meta is built for a discarded line.
      if (logger.isLevelEnabled?.("debug") !== false) {
        logger.debug("hook request accepted", { ...base(rec, status), kind: info.kind, mappingId: info.mappingId, runId: info.runId, replayed: info.replayed });
      }
      if (emitter.listenerCount("request:accepted") === 0) return;
      emitter.emit("request:accepted", {
        requestId: rec.requestId,
        hook: rec.hook ?? "",
        mappingId: info.mappingId,
        status,
        kind: info.kind,
        runId: info.runId,
        replayed: info.replayed,
      });
    },
    rejected(rec, status, code) {
      if (rec.reported) return;
      rec.reported = true;
      metrics?.answered(rec.hook, status, seconds(rec));
      const meta = { ...base(rec, status), code, method: rec.method, url: rec.url };
      if (status >= 500) logger.error("hook request rejected", meta);
      else logger.warn("hook request rejected", meta);
      emitter.emit("request:rejected", { requestId: rec.requestId, hook: rec.hook, status, code });
    },
    served(rec, status) {
      if (rec.reported) return;
      rec.reported = true;
      metrics?.answered(rec.hook, status, seconds(rec));
      logger.debug("run status served", base(rec, status));
    },
    aborted(rec) {
      if (rec.reported) return;
      rec.reported = true;
      logger.info("hook request aborted by the client", { ...base(rec, 0), method: rec.method, url: rec.url });
    },
  };
}
