/**
 * Replay of a stored delivery (SPEC §11): its body, redacted headers and URL go
 * through today's pipeline from the parse step on — body parsing, today's
 * mappings, validation, dispatch — and the answer is recorded as a new delivery
 * linked by `replayOf`. On purpose:
 * - signatures are not checked again (the original was verified; its signature
 *   headers are not even stored);
 * - idempotency is bypassed (the point of a replay is to run again);
 * - a delivery refused at authentication (401, 429) is never replayed: its body was
 *   never authenticated, and replaying it would let it through.
 *
 * @example
 *   const replay = createReplayer({ config, handle, ledger });
 *   const { deliveryId, response } = await replay("0b5c…", "127.0.0.1");
 */
import { parseBody } from "../../actions/body/parse-body";
import type { ResolvedHooksConfig } from "../../config/types";
import { hookErrors } from "../../core/errors";
import type { HookResponse } from "../../core/ports";
import type { LedgerStore } from "../../store/ledger-store";
import { outcomeOf, outcomeRunIds, type HookHandler, type HookRequestContext } from "../hook-handler";
import { allowedMethod, hookName, isLedgerRoute, parseHookRoute } from "../hook-route";
import { flatQuery } from "../request-input";
import { toHookError } from "../render";
import { deliveryId } from "./delivery-id";

export interface ReplayOutcome {
  /** Id of the new delivery (its `replayOf` is the original). */
  deliveryId: string;
  /** The answer a fresh request would get today (an error as its rendered body). */
  response: HookResponse;
}

/** Throws a HookError (404 / 409) when the delivery cannot be replayed; otherwise answers like the pipeline. */
export type Replayer = (id: string, client: string) => Promise<ReplayOutcome>;

export interface ReplayerDeps {
  config: ResolvedHooksConfig;
  handle: HookHandler;
  ledger: LedgerStore;
  clock?: () => number;
  idGen?: () => string;
  /** Unexpected failures (a bug) are logged here, like the router does. */
  onUnexpected?: (e: unknown) => void;
}

/** Statuses of requests refused before they were authenticated. */
const NEVER_AUTHENTICATED = new Set([401, 429]);

function pathBelow(hooksPath: string, url: string): string {
  const pathPart = url.split("?")[0] ?? "";
  return pathPart.startsWith(hooksPath) ? pathPart.slice(hooksPath.length) : "";
}

export function createReplayer(deps: ReplayerDeps): Replayer {
  const { config, ledger } = deps;
  const clock = deps.clock ?? Date.now;
  const idGen = deps.idGen ?? (() => deliveryId(clock()));

  /** What the pipeline does with the stored request from the parse step on; throws HookErrors like it. */
  async function run(stored: NonNullable<ReturnType<LedgerStore["get"]>>, ctx: Partial<HookRequestContext>): Promise<HookResponse> {
    const parsed = parseHookRoute(pathBelow(config.path, stored.url), config.path);
    if (!parsed.ok) throw parsed.error;
    const route = parsed.route;
    if (isLedgerRoute(route)) throw hookErrors.methodNotAllowedOnLedger({ allowed: allowedMethod(route), route: `${config.path}/${hookName(route)}` });
    if (stored.method !== "POST") throw hookErrors.methodNotAllowedOnHook({ allowed: "POST" }, { headers: { Allow: "POST" } });
    const payload = parseBody(stored.rawBody ?? Buffer.alloc(0), { mapped: route.kind === "mapped", contentType: stored.headers["content-type"] });
    if (!payload.ok) throw payload.error;
    Object.assign(ctx, { route, name: hookName(route), payload: payload.value, headers: { ...stored.headers }, query: flatQuery(stored.url), url: stored.url, outcome: {} });
    return deps.handle(ctx as HookRequestContext);
  }

  return async function replay(id, client) {
    const stored = ledger.get(id);
    if (!stored) throw hookErrors.deliveryNotFound();
    if (NEVER_AUTHENTICATED.has(stored.status)) throw hookErrors.deliveryRefusedAtAuthentication({ code: stored.code ?? String(stored.status) });
    if (!stored.bodyStored) throw hookErrors.deliveryBodyNotStored();

    const startedAt = clock();
    const deliveryId = idGen();
    const ctx: Partial<HookRequestContext> = { requestId: deliveryId };
    let response: HookResponse;
    let code: string | undefined;
    try {
      response = await run(stored, ctx);
    } catch (e) {
      const { error, unexpected } = toHookError(e);
      if (unexpected) deps.onUnexpected?.(e);
      response = { status: error.status, body: error.toBody(), ...(error.headers ? { headers: error.headers } : {}) };
      code = error.code;
    }
    const outcome = outcomeOf(response, ctx.outcome ?? {});
    ledger.record({
      id: deliveryId,
      receivedAt: startedAt,
      method: stored.method,
      url: stored.url,
      ...(stored.hook !== undefined ? { hook: stored.hook } : {}),
      ...(outcome.mappingId !== undefined && code === undefined ? { mappingId: outcome.mappingId } : {}),
      client,
      status: response.status,
      ...(code !== undefined ? { code } : {}),
      latencyMs: clock() - startedAt,
      runIds: code === undefined ? outcomeRunIds(outcome) : [],
      replayOf: stored.id,
      headers: stored.headers,
      ...(stored.rawBody ? { body: stored.rawBody } : {}),
      response: response.body,
    });
    return { deliveryId, response };
  };
}
