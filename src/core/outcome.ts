/**
 * The one outcome of a hook request (SPEC §4.1 "One accept path"): what the request
 * became, decided by the core (src/intake/) and read — never re-derived — by
 * the reporter (log, events), the metrics and the delivery ledger. Extend it here
 * when a reader needs more: every producer builds it with `outcome()` below.
 */
import type { ErrorCode } from "./errors";

/** What an accepted request did. */
export type AcceptedKind = "wake" | "agent" | "skip" | "pong" | "batch" | "handshake";

/**
 * Where the answer was decided (docs/architecture.md "Request lifecycle"):
 * `route` (404/405 before any credential), `credential` (token, signature or verify
 * token refused: 400/401/403/429), `admission` (shutting down, rate policy),
 * `body` (reading: 408/413/415 encoding; parsing, the first step of accept: 400
 * invalid_json, 415), `accept` (mapping → idempotency → validate → dispatch), `read`
 * (a run or ledger route, replay included).
 */
export type OutcomeStage = "route" | "credential" | "admission" | "body" | "accept" | "read";

export interface Outcome {
  /** An accepted kind; `refused` for an error answer; `served` for a run or ledger read (or a replay's own answer). */
  kind: AcceptedKind | "refused" | "served";
  stage: OutcomeStage;
  /** True once the request's credential (token, signature, verify token) passed. False: refused before authentication. */
  authenticated: boolean;
  /** The error code of a refusal. */
  code?: ErrorCode;
  /** The mapping that matched (mapped hooks). */
  mappingId?: string;
  /** The runs the request started, in item order (one for an agent, each item's for a fan-out). */
  runIds: readonly string[];
  /** The answer is the stored one of an earlier request with the same idempotency key. */
  replayed?: boolean;
  /** The request's idempotency key, when it had one. */
  idempotencyKey?: string;
  /** What happened at the sender, named by the mapping (SPEC §6.1 `event`). */
  event?: string;
  /**
   * The client went away before the answer was written, but the request took effect
   * (a `Prefer: wait` sender that gave up after its run was stored): recorded as
   * answered, marked `client_went_away` in the ledger.
   */
  clientGone?: boolean;
}

/** The ledger's code of an accepted request whose client went away before the answer. */
export const CLIENT_WENT_AWAY = "client_went_away";

/** True when the outcome took effect: an accepted kind (a run stored, a wake queued, a skip or a challenge answered). */
export function tookEffect(o: Outcome): boolean {
  return o.kind !== "refused" && o.kind !== "served";
}

/** An outcome with the defaults filled in. */
export function outcome(fields: Partial<Outcome> & Pick<Outcome, "kind" | "stage">): Outcome {
  return { authenticated: false, runIds: [], ...fields };
}

/** True for a request refused before its credential was accepted (401, 429 of the auth throttle, a bad signature, 404/405 of the route). */
export function refusedBeforeAuthentication(o: Outcome): boolean {
  return !o.authenticated;
}
