/**
 * The answer of the hooks route while the plugin's runtime is not running (before
 * the runs service started it): 503 `shutting_down` with `Retry-After`, so a
 * sender retries, and `X-Request-Id` like every other answer.
 */
import type { RequestHandler } from "express";
import { hookErrors } from "../core/errors";
import { renderHookError } from "./render";
import { REQUEST_ID_HEADER, resolveRequestId } from "./request-id";
import { SHUTDOWN_RETRY_AFTER_SECONDS } from "./pipeline-texts";

export function notServingHandler(): RequestHandler {
  return (req, res) => {
    res.setHeader(REQUEST_ID_HEADER, resolveRequestId(req.headers["x-request-id"]));
    renderHookError(res, hookErrors.notServing({ headers: { "Retry-After": String(SHUTDOWN_RETRY_AFTER_SECONDS) } }));
  };
}
