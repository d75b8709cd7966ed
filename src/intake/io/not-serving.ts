/**
 * The answer of the hooks route while the plugin's runtime is not running: 503 with
 * `Retry-After`, so a sender retries, and `X-Request-Id` like every other answer.
 * `shutting_down` before the runs service started it and after it stopped;
 * `not_configured`, naming the keys, when its start failed on the config (a token
 * `{ env }` whose variable is unset): a host that keeps serving its routes after a
 * failed service start (OpenClaw) answers why, not "not started yet".
 */
import type { HttpRouteHandler } from "../../host-contract/http-route";
import { hookErrors, type HookError } from "../../core/errors";
import { renderHookError } from "./render";
import { REQUEST_ID_HEADER, resolveRequestId } from "../request-id";
import { SHUTDOWN_RETRY_AFTER_SECONDS } from "../pipeline-texts";

const RETRY_AFTER = { "Retry-After": String(SHUTDOWN_RETRY_AFTER_SECONDS) };

/**
 * The `not_configured` answer of a start that failed with `e`, or undefined when `e` is no config problem.
 * A ConfigError's lines are `<key> <rule>` (keys already named where the host keeps them); the answer
 * names the keys only, never the rule (which names environment variables and files).
 */
export function startFailureAnswer(e: unknown): HookError | undefined {
  if (!(e instanceof Error) || e.name !== "ConfigError") return undefined;
  const keys = [
    ...new Set(
      e.message.split("\n").flatMap((line) =>
        line
          .trim()
          .split(/\s/, 1)
          .filter((k) => k !== ""),
      ),
    ),
  ];
  return keys.length > 0 ? hookErrors.notConfigured({ keys: keys.join(", ") }, { headers: RETRY_AFTER }) : undefined;
}

/** `startFailure`: the answer of the last failed start, if it failed on the config (startFailureAnswer). */
export function notServingHandler(startFailure: () => HookError | undefined = () => undefined): HttpRouteHandler {
  return (req, res) => {
    res.setHeader(REQUEST_ID_HEADER, resolveRequestId(req.headers["x-request-id"]));
    renderHookError(res, startFailure() ?? hookErrors.notServing({ headers: RETRY_AFTER }));
  };
}
