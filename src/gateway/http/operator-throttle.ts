/**
 * One throttle for every way of presenting the operator token (SPEC §9): the
 * `/ui` login form, `Authorization: Bearer` on `/ui`, `/ui/api/*`, `/api/*` and
 * `/metrics` all count their wrong tokens here, per client address. After
 * `maxFailures` wrong tokens within `windowMs` that client is blocked (429 with
 * `Retry-After`) on every operator route, even with the right token, until the
 * failures leave the window. A right token from a client that is not blocked
 * clears its count.
 *
 * The counting is the hooks' auth-failure throttle (src/host-contract/auth-throttle.ts),
 * so a blocked client is never forgotten however many other addresses fail.
 *
 * @example
 *   const throttle = createOperatorThrottle();
 *   const verdict = checkOperatorToken(throttle, req.ip, bearerToken(req), authToken);
 *   if (verdict.kind === "blocked") answer429(verdict.retryAfterSeconds);
 */
import { createAuthThrottle } from "../../host-contract/auth-throttle";
import { sameSecret } from "./operator-token";

export const DEFAULT_OPERATOR_MAX_FAILURES = 5;
export const DEFAULT_OPERATOR_WINDOW_MS = 15 * 60 * 1000;

export interface OperatorThrottleOptions {
  /** Wrong tokens allowed within the window; the client is blocked once it has sent this many. Default 5. */
  maxFailures?: number;
  /** Default 15 minutes. */
  windowMs?: number;
  /** Milliseconds since the epoch; default Date.now. */
  now?: () => number;
  /** Clients still counting tracked at most (blocked clients are never dropped). Default 10000. */
  maxClients?: number;
}

export interface OperatorThrottle {
  /** Seconds until `client` may present a token again; 0 when it may now. */
  blockedFor(client: string): number;
  /** Counts one wrong token of `client`. */
  fail(client: string): void;
  /** A right token of a client that is not blocked: its count starts again. */
  succeed(client: string): void;
}

export function createOperatorThrottle(opts: OperatorThrottleOptions = {}): OperatorThrottle {
  const maxFailures = opts.maxFailures ?? DEFAULT_OPERATOR_MAX_FAILURES;
  // The shared throttle blocks a client once it has more than its maxFailures in the window.
  const counter = createAuthThrottle({
    maxFailures: maxFailures - 1,
    windowSeconds: (opts.windowMs ?? DEFAULT_OPERATOR_WINDOW_MS) / 1000,
    clock: opts.now,
    maxClients: opts.maxClients,
  });
  return {
    blockedFor(client) {
      const state = counter.peek(client);
      return state.throttled ? state.retryAfterSeconds : 0;
    },
    fail: (client) => void counter.recordFailure(client),
    succeed: (client) => counter.clear(client),
  };
}

export type OperatorTokenVerdict = { kind: "ok" } | { kind: "wrong" } | { kind: "blocked"; retryAfterSeconds: number };

/**
 * The verdict on a presented operator token: `blocked` for a blocked client
 * (whatever it sent, nothing counted), else `ok` (count cleared) or `wrong`
 * (counted). A request that presents no token is not a guess: call this only
 * when a token was sent.
 */
export function checkOperatorToken(throttle: OperatorThrottle, client: string, sent: string, operatorToken: string): OperatorTokenVerdict {
  const wait = throttle.blockedFor(client);
  if (wait > 0) return { kind: "blocked", retryAfterSeconds: wait };
  if (sent !== "" && sameSecret(sent, operatorToken)) {
    throttle.succeed(client);
    return { kind: "ok" };
  }
  throttle.fail(client);
  return { kind: "wrong" };
}

/** The address an operator request is counted under (Express's `req.ip`, which honours `gateway.trustProxy`). */
export function operatorClient(req: { ip?: string; socket: { remoteAddress?: string } }): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}
