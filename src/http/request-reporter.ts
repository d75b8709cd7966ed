/**
 * Logs and events for each decision (STYLE §10): request id, hook, status,
 * code, body size and latency. Never tokens, never payloads; the URL is logged
 * with any `?token=` redacted.
 */
import type { ErrorCode } from "../core/errors";
import type { PluginEmitter } from "../core/events";
import type { ModuleLogger } from "../core/logger";

/** What the pipeline knows about a request while it runs. */
export interface RequestRecord {
  requestId: string;
  /** Milliseconds from the clock when the request entered the router. */
  startedAt: number;
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
  kind: "wake" | "agent" | "skip" | "pong";
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

export function createRequestReporter(options: { logger: ModuleLogger; emitter: PluginEmitter; clock: () => number }): RequestReporter {
  const { logger, emitter, clock } = options;

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
      // Per request: at debug (the decision is the 2xx itself; events carry it to metrics). Refusals stay at warn/error.
      logger.debug("hook request accepted", { ...base(rec, status), kind: info.kind, mappingId: info.mappingId, runId: info.runId, replayed: info.replayed });
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
      const meta = { ...base(rec, status), code, method: rec.method, url: rec.url };
      if (status >= 500) logger.error("hook request rejected", meta);
      else logger.warn("hook request rejected", meta);
      emitter.emit("request:rejected", { requestId: rec.requestId, hook: rec.hook, status, code });
    },
    served(rec, status) {
      if (rec.reported) return;
      rec.reported = true;
      logger.debug("run status served", base(rec, status));
    },
    aborted(rec) {
      if (rec.reported) return;
      rec.reported = true;
      logger.info("hook request aborted by the client", { ...base(rec, 0), method: rec.method, url: rec.url });
    },
  };
}
