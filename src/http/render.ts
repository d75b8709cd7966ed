/**
 * The one renderer of the pipeline: writes a HookResponse or a HookError as
 * `application/json; charset=utf-8` (204 has no body). Error bodies come from
 * `HookError.toBody()` only, so no cause, stack, path or token reaches a client.
 */
import type { ServerResponse } from "node:http";
import { hookErrors, HookError } from "../core/errors";
import type { HookResponse } from "../core/ports";
import { REPLAYED_HEADER } from "./idempotency/idempotency-guard";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

function write(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> | undefined): void {
  for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
  res.setHeader("Cache-Control", "no-store");
  res.setHeader("X-Content-Type-Options", "nosniff");
  res.statusCode = status;
  if (body === undefined || status === 204 || status === 304) {
    res.removeHeader("Content-Type");
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.setHeader("Content-Type", JSON_CONTENT_TYPE);
  res.setHeader("Content-Length", Buffer.byteLength(text));
  res.end(text);
}

/** Writes a handler's response; a replay gets `Idempotent-Replayed: true`. */
export function renderHookResponse(res: ServerResponse, response: HookResponse & { replayed?: boolean }): void {
  const headers = response.replayed ? { ...(response.headers ?? {}), [REPLAYED_HEADER]: "true" } : response.headers;
  write(res, response.status, response.body, headers);
}

/** Writes `{ ok: false, code, error, details? }` with the error's status and headers. */
export function renderHookError(res: ServerResponse, error: HookError): void {
  write(res, error.status, error.toBody(), error.headers);
}

/** The HookError to answer for anything thrown: itself, or a bare `internal_error`. */
export function toHookError(e: unknown): { error: HookError; unexpected: boolean } {
  return e instanceof HookError ? { error: e, unexpected: false } : { error: hookErrors.internalError(), unexpected: true };
}
