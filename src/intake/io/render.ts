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
import { REPLAYED_HEADER } from "../idempotency/idempotency-guard";

/** Writes a handler's response; a replay gets `Idempotent-Replayed: true`. */
export function renderHookResponse(res: ServerResponse, response: HookResponse & { replayed?: boolean }): void {
  const headers = response.replayed ? { ...(response.headers ?? {}), [REPLAYED_HEADER]: "true" } : response.headers;
  writeJson(res, response.status, response.body, headers);
}

/** Writes `{ ok: false, code, error, details? }` with the error's status and headers. */
export function renderHookError(res: ServerResponse, error: HookError): void {
  writeJson(res, error.status, error.toBody(), error.headers);
}
