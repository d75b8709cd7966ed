/**
 * Replay of a stored delivery (SPEC §11): its body, redacted headers and URL go
 * through the accept path live requests take (src/http/pipeline/accept.ts: body
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
import type { ResolvedHooksConfig } from "../../config/types";
import { hookErrors, HookError } from "../../core/errors";
import type { LedgerStore } from "../../store/ledger-store";
import type { SignatureGate } from "../auth/signature-gate";
import { allowedMethod, hookName, isLedgerRoute, methodNotAllowed, parseHookRoute } from "../hook-route";
import type { Accept } from "./accept";
import { refusal, type Answer, type HookRequest } from "./hook-request";
import { flatQuery } from "../request-input";
import { deliveryId } from "../ledger/delivery-id";
import type { Replayer } from "../ledger/ledger-routes";

export interface ReplayerDeps {
  config: ResolvedHooksConfig;
  /** The accept path live requests take (src/http/pipeline/accept.ts). */
  accept: Accept;
  ledger: LedgerStore;
  /** The verified paths: a replay on one is marked verified (its signed message id keys idempotency as it did live). */
  signatures?: Pick<SignatureGate, "forHook">;
  clock?: () => number;
  idGen?: () => string;
  /** Unexpected failures (a bug) are logged here, like the router does. */
  onUnexpected?: (e: unknown) => void;
}

type Stored = NonNullable<ReturnType<LedgerStore["get"]>>;

/**
 * The path below `hooks.path` of a stored URL, as the live request's router read it: a URL
 * in absolute form (`http://host/hooks/x`, as a forward proxy sends it) is routed by its
 * path, so its scheme and authority are dropped first (as Express's mount does). Undefined
 * when the URL is not below `hooks.path` (recorded under another `hooks.path`).
 */
function pathBelow(hooksPath: string, url: string): string | undefined {
  let pathPart = url.split("?")[0] ?? "";
  if (!pathPart.startsWith("/")) {
    const authority = pathPart.indexOf("://");
    const slash = authority === -1 ? -1 : pathPart.indexOf("/", authority + 3);
    pathPart = slash === -1 ? "" : pathPart.slice(slash);
  }
  // Below the mount point by whole segments, as the live router is: `/hooks2/x` is not below `/hooks` (SPEC §4.1).
  const below = pathPart.slice(hooksPath.length);
  return pathPart.startsWith(hooksPath) && (below === "" || below.startsWith("/")) ? below : undefined;
}

export function createReplayer(deps: ReplayerDeps): Replayer {
  const { config, ledger } = deps;
  const clock = deps.clock ?? Date.now;
  const idGen = deps.idGen ?? (() => deliveryId(clock()));

  /** The stored request through the accept path (verification already done, idempotency off). */
  async function run(stored: Stored, requestId: string, client: string): Promise<Answer> {
    const below = pathBelow(config.path, stored.url);
    if (below === undefined) return refusal(hookErrors.replayPathNotBelow({ hooksPath: config.path }), "route", true);
    const route = parseHookRoute(below, config.path);
    const req: HookRequest = { requestId, method: stored.method, route, ...(route.ok ? { hook: hookName(route.route) } : {}), headers: { ...stored.headers }, query: flatQuery(stored.url), rawUrl: stored.url, url: stored.url, client };
    if (!route.ok) return refusal(route.error, "route", true);
    if (isLedgerRoute(route.route)) return refusal(hookErrors.methodNotAllowedOnLedger({ allowed: allowedMethod(route.route), route: `${config.path}/${hookName(route.route)}` }), "route", true);
    if (stored.method !== "POST") return refusal(methodNotAllowed(route.route, config.path), "route", true);
    const verifiedBy = route.route.kind === "mapped" ? deps.signatures?.forHook(route.route.name) : undefined;
    return deps.accept(req, route.route, stored.rawBody ?? Buffer.alloc(0), { idempotency: false, ...(verifiedBy ? { verifiedBy } : {}) });
  }

  return async function replay(id, client) {
    const stored = ledger.get(id);
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
