/**
 * The auth stage of the pipeline (SPEC §4.1): a refused query token (400), a
 * missing or wrong token (401), or too many failures from one client (429).
 * Only POST failures count towards the throttle; a correct token always passes
 * and clears the client's count.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { ResolvedHooksConfig } from "../../config/types";
import { err, hookErrors, ok, type Result } from "../../core/errors";
import { createAuthThrottle, type AuthThrottle } from "./auth-throttle";
import { extractToken, hasQueryToken, type TokenCarrier } from "./token-carrier";
import { createTokenMatcher } from "./token-matcher";

export interface AuthRequest {
  method: string;
  headers: IncomingHttpHeaders;
  /** URL as received (with the query string). */
  url: string;
  /** Client key (see client-key.ts). */
  client: string;
}

export interface Authenticator {
  authenticate(req: AuthRequest): Result<{ carrier: TokenCarrier }>;
  readonly throttle: AuthThrottle;
}

const CHALLENGE = { "WWW-Authenticate": 'Bearer realm="hooks"' };

export function createAuthenticator(options: {
  config: Pick<ResolvedHooksConfig, "token" | "allowQueryToken" | "authThrottle">;
  clock?: () => number;
}): Authenticator {
  const { config } = options;
  const matches = createTokenMatcher(config.token);
  const throttle = createAuthThrottle({ ...config.authThrottle, clock: options.clock });

  return {
    throttle,
    authenticate(req) {
      if (!config.allowQueryToken && hasQueryToken(req.url)) return err(hookErrors.queryTokenNotAllowed());
      const presented = extractToken(req.headers, req.url);
      if (presented && matches(presented.token)) {
        throttle.clear(req.client);
        return ok({ carrier: presented.carrier });
      }
      if (req.method === "POST") {
        const verdict = throttle.recordFailure(req.client);
        if (verdict.throttled) {
          const { maxFailures, windowSeconds } = config.authThrottle;
          const { retryAfterSeconds } = verdict;
          return err(hookErrors.authThrottled({ maxFailures, windowSeconds, retryAfterSeconds }, { headers: { "Retry-After": String(retryAfterSeconds) } }));
        }
      }
      return err((presented ? hookErrors.tokenInvalid : hookErrors.tokenMissing)({ headers: CHALLENGE }));
    },
  };
}
