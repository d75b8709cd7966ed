/**
 * The pipeline's writer: a HookResponse or a HookError on a node:http response, through the one JSON
 * writer both hosts share (src/host-contract/json-response.ts: `application/json; charset=utf-8`, 204
 * without a body). Error bodies come from `HookError.toBody()` only, so no cause, stack, path or token
 * reaches a client.
 */
import type { ServerResponse } from "node:http";
import type { HookError } from "../../core/errors";
import type { HookResponse } from "../../core/ports";
import { writeJson } from "../../host-contract/json-response";

/** Writes a handler's response (an idempotent replay's `Idempotent-Replayed: true` is among its headers already: idempotency-guard.ts). */
export function renderHookResponse(res: ServerResponse, response: HookResponse): void {
  writeJson(res, response.status, response.body, response.headers);
}

/** Writes `{ ok: false, code, error, details? }` with the error's status and headers. */
export function renderHookError(res: ServerResponse, error: HookError): void {
  writeJson(res, error.status, error.toBody(), error.headers);
}
