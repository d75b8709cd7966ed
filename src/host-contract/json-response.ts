/**
 * The one writer of JSON answers on a node:http response, and the one shape of an
 * error answer (SPEC §4.2): `{ ok: false, code, error, details? }`. The plugin's
 * answers (src/intake/io/render.ts, from its error catalogue) and both hosts' own
 * (the embedded gateway's routes and dashboard, the OpenClaw adapter) are written
 * here, so every error body and its headers are the same wherever they come from.
 *
 * @example
 *   writeError(res, 404, "not_found", "No route matches this path.");
 */
import type { ServerResponse } from "node:http";

export const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/** The body of every error answer. `details` lists one problem per field (validation). */
export interface ErrorBody<Code extends string = string, Detail = unknown> {
  ok: false;
  code: Code;
  error: string;
  details?: Detail[];
}

/** The error answer's body; `details` only when there is one. */
export function errorBody<Code extends string, Detail>(code: Code, error: string, details?: readonly Detail[]): ErrorBody<Code, Detail> {
  return details && details.length > 0 ? { ok: false, code, error, details: [...details] } : { ok: false, code, error };
}

/**
 * Writes `body` as JSON with `status` and `headers` (204 and 304, or no body, have none), never cached and never
 * sniffed. The response must not have started.
 */
export function writeJson(res: ServerResponse, status: number, body: unknown, headers?: Readonly<Record<string, string>>): void {
  if (headers) for (const name of Object.keys(headers)) res.setHeader(name, headers[name]!);
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

/** Writes the error answer `{ ok: false, code, error }` with `status` (and `headers`, e.g. Retry-After). */
export function writeError(res: ServerResponse, status: number, code: string, error: string, headers?: Readonly<Record<string, string>>): void {
  writeJson(res, status, errorBody(code, error), headers);
}
