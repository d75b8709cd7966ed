/**
 * Replay of a stored delivery (SPEC §11): its body, redacted headers and URL go
 * through the accept path live requests take (src/intake/accept.ts: body
 * parsing of every media type, today's mappings, validation, dispatch) and the
 * answer is recorded as a new delivery linked by `replayOf`. On purpose:
 * - signatures are not checked again (the original was verified; its signature
 *   headers are not even stored);
 * - idempotency is bypassed (the point of a replay is to run again);
 * - a delivery refused before it authenticated (the row's `refused`: 401, a bad
 *   signature, the auth throttle's 429, a 404/405 answered before the credential) is
 *   never replayed: its body was never authenticated, and replaying it would let it
 *   through. A status alone does not say so: a correctly signed request that the rate
 *   limit answered 429 was authenticated, and is replayed.
 *
 * @example
 *   const replay = createReplayer({ config, accept, ledger });
 *   const { deliveryId, response } = await replay("0b5c…", "127.0.0.1");
 */
import type { ResolvedHooksConfig } from "../config/types";
import { hookErrors, HookError } from "../core/errors";
import type { LedgerEntry, StoredDelivery } from "../store/ledger-rows";
import type { SignatureGate } from "./auth/signature-gate";
import { allowedMethod, hookName, isLedgerRoute, methodNotAllowed } from "../core/hook-route";
import type { Accept } from "./accept";
import { pathBelow } from "../host-contract/route-path";
import { hookRequestOf, refusal, type Answer } from "./hook-request";
import { deliveryId } from "./ledger/delivery-id";
import type { Replayer } from "./ledger/ledger-routes";

/**
 * What a replay needs of the ledger: the stored delivery, read from the store (the SQLite
 * ledger, or Postgres: pg-ledger.ts), and the write of the replay's own row (the group commit's).
 */
export interface ReplayLedger {
  get(id: string): StoredDelivery | undefined | Promise<StoredDelivery | undefined>;
  record(entry: LedgerEntry): void;
}

export interface ReplayerDeps {
  config: ResolvedHooksConfig;
  /** The accept path live requests take (src/intake/accept.ts). */
  accept: Accept;
  ledger: ReplayLedger;
  /** The verified paths: a replay on one is marked verified (its signed message id keys idempotency as it did live). */
  signatures?: Pick<SignatureGate, "forHook">;
  clock?: () => number;
  idGen?: () => string;
  /** Unexpected failures (a bug) are logged here, like the router does. */
  onUnexpected?: (e: unknown) => void;
}

export function createReplayer(deps: ReplayerDeps): Replayer {
  const { config, ledger } = deps;
  const clock = deps.clock ?? Date.now;
  const idGen = deps.idGen ?? (() => deliveryId(clock()));

  /** The stored request through the accept path (verification already done, idempotency off). */
  async function run(stored: StoredDelivery, requestId: string, client: string): Promise<Answer> {
    // Below hooks.path by today's rule, as its live request was routed (hookRequestOf); recorded under another hooks.path: 404.
    if (pathBelow(config.path, stored.url) === undefined) return refusal(hookErrors.replayPathNotBelow({ hooksPath: config.path }), "route", true);
    const req = hookRequestOf({ requestId, method: stored.method, url: stored.url, headers: { ...stored.headers }, client }, config.path);
    const route = req.route;
    if (!route.ok) return refusal(route.error, "route", true);
    if (isLedgerRoute(route.route))
      return refusal(
        hookErrors.methodNotAllowedOnLedger({ allowed: allowedMethod(route.route), route: `${config.path}/${hookName(route.route)}` }),
        "route",
        true,
      );
    if (stored.method !== "POST") return refusal(methodNotAllowed(route.route, config.path), "route", true);
    const verifiedBy = route.route.kind === "mapped" ? deps.signatures?.forHook(route.route.name) : undefined;
    return deps.accept(req, route.route, stored.rawBody ?? Buffer.alloc(0), { idempotency: false, ...(verifiedBy ? { verifiedBy } : {}) });
  }

  return async function replay(id, client) {
    const stored = await ledger.get(id);
    if (!stored) throw hookErrors.deliveryNotFound();
    if (stored.refused === true) throw hookErrors.deliveryRefusedAtAuthentication({ code: stored.code ?? String(stored.status) });
    if (!stored.bodyStored) throw hookErrors.deliveryBodyNotStored();

    const startedAt = clock();
    const deliveryId = idGen();
    let answer: Answer;
    try {
      answer = await run(stored, deliveryId, client);
    } catch (e) {
      deps.onUnexpected?.(e);
      answer = refusal(e instanceof HookError ? e : hookErrors.internalError(), "accept", true);
    }
    const { outcome, text: _text, ...response } = answer;
    const refused = outcome.kind === "refused";
    ledger.record({
      id: deliveryId,
      receivedAt: startedAt,
      method: stored.method,
      url: stored.url,
      ...(stored.hook !== undefined ? { hook: stored.hook } : {}),
      ...(outcome.mappingId !== undefined && !refused ? { mappingId: outcome.mappingId } : {}),
      ...(outcome.event !== undefined ? { event: outcome.event } : {}),
      client,
      status: response.status,
      ...(outcome.code !== undefined ? { code: outcome.code } : {}),
      latencyMs: clock() - startedAt,
      runIds: refused ? [] : [...outcome.runIds],
      replayOf: stored.id,
      headers: stored.headers,
      ...(stored.rawBody ? { body: stored.rawBody } : {}),
      response: response.body,
    });
    return { deliveryId, response };
  };
}
