/**
 * The auth stage of the pipeline (SPEC §4.1): a refused query token (400), a
 * missing or wrong token (401), or too many failures from one client (429).
 *
 * A failure is any request below the hook path that presents no token or a
 * wrong one, whatever its route and method (run status, unknown hooks, wrong
 * methods too), so no route is an unthrottled oracle. A refused query token is
 * not compared, so it does not count, but a throttled client gets 429 for it
 * too. A correct token always passes and clears the client's count.
 *
 * On a path a mapping verifies (SPEC §10) no token is checked: after reading the
 * body the core reports a refused signature with `refuseSignature()`, which counts
 * it like a wrong token. The throttle is consulted only when a credential fails, so
 * a valid signature passes a throttled address (providers share address pools,
 * SPEC §9), but it does not clear the count (a captured signed request could be
 * replayed to do so).
 */
import type { RequestHeaders } from "../request-input";
import type { ResolvedHooksConfig } from "../../config/types";
import { err, hookErrors, ok, type HookError, type Result } from "../../core/errors";
import type { VerifyFailure } from "../../safety/signatures/types";
import { createAuthThrottle, type AuthThrottle, type AuthThrottleOptions } from "../../host-contract/auth-throttle";
import { extractToken, hasQueryToken, type TokenCarrier } from "./token-carrier";
import { createTokenMatcher } from "./token-matcher";

export interface AuthRequest {
  headers: RequestHeaders;
  /** URL as received (with the query string). */
  url: string;
  /** Client key (see client-key.ts). */
  client: string;
}

export interface Authenticator {
  authenticate(req: AuthRequest): Result<{ carrier: TokenCarrier }>;
  /** Counts a refused signature as an authentication failure: 429 once over the limit, else 401 with the verifier's sentence. */
  refuseSignature(client: string, failure: VerifyFailure): HookError;
  /** Counts another refused credential (a wrong Meta verify token) as a failure: 429 once over the limit, else `error`. */
  refuse(client: string, error: HookError): HookError;
  readonly throttle: AuthThrottle;
}

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="hooks"' };

/** How many clients the throttle tracks (default: its 10,000 counting and 10,000 throttled). */
export type ThrottleTables = Pick<AuthThrottleOptions, "maxClients" | "maxThrottledClients">;

export function createAuthenticator(options: {
  config: Pick<ResolvedHooksConfig, "token" | "allowQueryToken" | "authThrottle">;
  clock?: () => number;
  throttleTables?: ThrottleTables;
}): Authenticator {
  const { config } = options;
  const matches = createTokenMatcher(config.token);
  const throttle = createAuthThrottle({ ...config.authThrottle, ...options.throttleTables, clock: options.clock });
  const tooMany = (retryAfterSeconds: number) => {
    const { maxFailures, windowSeconds } = config.authThrottle;
    return hookErrors.authThrottled({ maxFailures, windowSeconds, retryAfterSeconds }, { headers: { "Retry-After": String(retryAfterSeconds) } });
  };

  return {
    throttle,
    refuseSignature(client, failure) {
      const verdict = throttle.recordFailure(client);
      if (verdict.throttled) return tooMany(verdict.retryAfterSeconds);
      return failure.code === "signature_expired"
        ? hookErrors.signatureExpired({ reason: failure.message })
        : hookErrors.signatureInvalid({ reason: failure.message });
    },
    refuse(client, error) {
      const verdict = throttle.recordFailure(client);
      return verdict.throttled ? tooMany(verdict.retryAfterSeconds) : error;
    },
    authenticate(req) {
      if (!config.allowQueryToken && hasQueryToken(req.url)) {
        const state = throttle.peek(req.client);
        return err(state.throttled ? tooMany(state.retryAfterSeconds) : hookErrors.queryTokenNotAllowed());
      }
      const presented = extractToken(req.headers, req.url);
      if (presented && matches(presented.token)) {
        throttle.clear(req.client);
        return ok({ carrier: presented.carrier });
      }
      const verdict = throttle.recordFailure(req.client);
      if (verdict.throttled) return err(tooMany(verdict.retryAfterSeconds));
      return err((presented ? hookErrors.tokenInvalid : hookErrors.tokenMissing)({ headers: CHALLENGE }));
    },
  };
}
