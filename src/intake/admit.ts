/**
 * Admission, the first half of the core (docs/architecture.md "Request lifecycle"):
 *
 *   route (404) → method (405) → credential → shutting down (503) → rate policy (429)
 *
 * Route and method come first and never count as authentication failures (SPEC
 * §4.1). The credential is the hook token, the sender's signature on a verified
 * path (checked by `verifySignature` once the adapter has read the body), or a
 * Meta verify token on a handshake GET. The auth-failure throttle is consulted
 * only when a credential fails, to answer 401/403 or 429: a correct token or
 * verify token (which clear nothing but the token's own count) and a valid
 * signature pass a throttled address; a valid signature does not clear the count.
 * On a verified path the rate policy counts the request only once its signature is
 * valid (in `verifySignature`): a refused signature is the auth throttle's alone.
 *
 * @example
 *   const admission = createAdmission({ config, authenticator, signatures, handshakes });
 *   const a = admission.admit(req);
 *   if (a.kind === "answer") return write(a.answer);
 */
import type { ResolvedHooksConfig } from "../config/types";
import { hookErrors } from "../core/errors";
import type { ModuleLogger } from "../core/logger";
import { outcome } from "../core/outcome";
import type { PipelineMetrics } from "../core/ports";
import type { Authenticator } from "./auth/authenticate";
import type { PathVerifier, SignatureGate } from "./auth/signature-gate";
import type { HandshakeGate } from "./handshake";
import { allowedMethod, methodNotAllowed, type HookRoute } from "../core/hook-route";
import { QUERY_TOKEN_LOG_MESSAGE, QUERY_TOKEN_WARNING, SHUTDOWN_RETRY_AFTER_SECONDS } from "./pipeline-texts";
import { refusal, type Answer, type HookRequest } from "./hook-request";
import type { RatePolicy } from "./rate-policy";

export type Admitted =
  /** Go on: read the body (verify `verifier`'s signature over it first, then count the rate policy, when set) and accept. */
  | { kind: "admitted"; route: HookRoute; headers: Record<string, string>; verifier?: PathVerifier }
  /** Answered here: a refusal, or a handshake's challenge. */
  | { kind: "answer"; answer: Answer };

export interface AdmissionDeps {
  config: ResolvedHooksConfig;
  authenticator: Authenticator;
  logger: ModuleLogger;
  signatures?: SignatureGate;
  handshakes?: HandshakeGate;
  isShuttingDown?: () => boolean;
  ratePolicy?: RatePolicy;
  metrics?: PipelineMetrics;
  /** True when this client's deprecated query token should be logged now (rate-limited). */
  shouldWarnQueryToken?: (client: string) => boolean;
}

export interface Admission {
  admit(req: HookRequest): Admitted;
  /**
   * On a verified path: undefined when the signature over `rawBody` is valid and the rate policy
   * lets the request on (its headers added to `headers`); else the refusal — 401, or 429 once the
   * client is over the auth-failure limit, or 429 from the rate policy.
   */
  verifySignature(req: HookRequest, verifier: PathVerifier, rawBody: Buffer, headers: Record<string, string>): Answer | undefined;
}

export function createAdmission(deps: AdmissionDeps): Admission {
  const { config, authenticator } = deps;

  /** The credential stage: undefined when it passed (headers to add in `headers`), else the answer. */
  function credential(req: HookRequest, route: HookRoute, headers: Record<string, string>): Admitted | { verifier: PathVerifier } | undefined {
    if (route.kind === "mapped") {
      // The handshake GET first: Meta's verification carries no signature, even on a path that verifies the POSTs.
      const handshake = req.method === "GET" ? deps.handshakes?.forHook(route.name) : undefined;
      if (handshake) {
        const answer = handshake.answer(req.query);
        if (!answer.ok) return { kind: "answer", answer: refusal(authenticator.refuse(req.client, answer.error), "credential", false) };
        return (
          policy(req, headers) ?? {
            kind: "answer",
            answer: {
              status: 200,
              text: answer.challenge,
              headers: { ...headers, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
              outcome: outcome({ kind: "handshake", stage: "accept", authenticated: true, mappingId: handshake.mappingId }),
            },
          }
        );
      }
      const verifier = deps.signatures?.forHook(route.name);
      if (verifier) return { verifier };
    }
    const auth = authenticator.authenticate({ headers: req.headers, url: req.rawUrl, client: req.client });
    if (!auth.ok) return { kind: "answer", answer: refusal(auth.error, "credential", false) };
    if (auth.value.carrier === "query") {
      headers.Deprecation = "true";
      headers.Warning = QUERY_TOKEN_WARNING;
      if (deps.shouldWarnQueryToken?.(req.client))
        deps.logger.warn(QUERY_TOKEN_LOG_MESSAGE, { requestId: req.requestId, hook: req.hook, client: req.client, url: req.url });
    }
    return undefined;
  }

  /** 503 while shutting down, else undefined. `authenticated`: false while a signature is still to be checked. */
  function shutdown(authenticated: boolean): Answer | undefined {
    if (!deps.isShuttingDown?.()) return undefined;
    return refusal(hookErrors.shuttingDown({ headers: { "Retry-After": String(SHUTDOWN_RETRY_AFTER_SECONDS) } }), "admission", authenticated);
  }

  /** Counts the request in the rate policy (its headers added to `headers`): undefined when it may go on, else the 429. */
  function rate(req: HookRequest, headers: Record<string, string>): Answer | undefined {
    const verdict = deps.ratePolicy?.check(req.hook, req.client);
    if (!verdict) return undefined;
    if (!verdict.ok) return refusal(verdict.error, "admission", true);
    Object.assign(headers, verdict.headers);
    return undefined;
  }

  /** Shutting down, then the rate policy, for a request whose credential passed. */
  function policy(req: HookRequest, headers: Record<string, string>): Admitted | undefined {
    const answer = shutdown(true) ?? rate(req, headers);
    return answer && { kind: "answer", answer };
  }

  return {
    admit(req) {
      if (!req.route.ok) return { kind: "answer", answer: refusal(req.route.error, "route", false) };
      const route = req.route.route;
      const headers: Record<string, string> = {};
      const handshakeGet = route.kind === "mapped" && req.method === "GET" && deps.handshakes?.forHook(route.name) !== undefined;
      if (req.method !== allowedMethod(route) && !handshakeGet)
        return { kind: "answer", answer: refusal(methodNotAllowed(route, config.path), "route", false) };
      const checked = credential(req, route, headers);
      if (checked && "kind" in checked) return checked;
      if (!checked) return policy(req, headers) ?? { kind: "admitted", route, headers };
      // A verified path: the rate policy counts the request once its signature is valid (verifySignature),
      // so someone else's bad signatures from a shared address never spend its budget (SPEC §9).
      const stopping = shutdown(false);
      return stopping ? { kind: "answer", answer: stopping } : { kind: "admitted", route, headers, verifier: checked.verifier };
    },
    verifySignature(req, verifier, rawBody, headers) {
      const failure = verifier.verify({ headers: req.headers, rawBody });
      if (!failure) return rate(req, headers);
      deps.metrics?.signatureFailed(verifier.scheme);
      return refusal(authenticator.refuseSignature(req.client, failure), "credential", false);
    },
  };
}
