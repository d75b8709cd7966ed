/**
 * The core of a hook request once it is authenticated and parsed: route →
 * validate → dispatch, returning the HookResponse instead of writing it, so the
 * idempotency guard can wrap it. Failures are thrown as HookErrors (the guard
 * stores only successful responses, so a corrected retry with the same key works).
 */
import { validateAction, validateAgent, validateWake, type ValidationContext } from "../actions/validate";
import type { ActionSource, HookAction } from "../core/actions";
import type { ResolvedHooksConfig } from "../config/types";
import { hookErrors } from "../core/errors";
import type { HostRuntime } from "../host-contract/host-api";
import type { Payload } from "../actions/body/parse-body";
import type { HookRoute, LedgerRoute } from "./hook-route";
import { acceptedRunBody, type Dispatcher, type HookResponse, type MappedHookResolver, type ResponseRenderer } from "../core/ports";
import { dispatchFanOut } from "./responses/fan-out-dispatch";

/** What the handler decided, for logs and events (filled while it runs). */
export interface HookOutcome {
  kind?: "wake" | "agent" | "skip" | "pong" | "batch" | "handshake";
  mappingId?: string;
  runId?: string;
  /** Every run a fan-out started, in item order. */
  runIds?: string[];
}

export interface HookRequestContext {
  requestId: string;
  route: Exclude<HookRoute, LedgerRoute>;
  /** Hook name: "wake", "agent" or the mapped sub-path. */
  name: string;
  payload: Payload;
  /** Lower-cased request headers (credentials included; the mapping engine strips them). */
  headers: Record<string, string>;
  /** Query parameters, first value of each (the token included; the mapping engine strips it). */
  query: Record<string, string>;
  /** Original URL with any token redacted. */
  url: string;
  /** `runIdempotencyKey(scope, key)` when the request carries an idempotency key. */
  idempotencyKey?: string;
  outcome: HookOutcome;
  /**
   * Set when the request asked to wait for its run (`Prefer: wait`): called with the
   * run id right after a single run was accepted — before it can start — so the
   * waiter sees its end. Not called for fan-out or a mapping with its own `response`.
   */
  awaitRun?: (runId: string) => void;
}

export type HookHandler = (ctx: HookRequestContext) => Promise<HookResponse>;

/**
 * The outcome of a response: what the handler recorded, or — for a replay, when
 * the handler did not run — what the stored response says.
 */
export function outcomeOf(response: HookResponse, recorded: HookOutcome): HookOutcome {
  if (recorded.kind) return recorded;
  const body = (response.body ?? {}) as { runId?: unknown; mapping?: unknown; pong?: unknown; runs?: unknown };
  const runs = Array.isArray(body.runs) ? body.runs.flatMap((r: { runId?: unknown }) => (typeof r?.runId === "string" ? [r.runId] : [])) : undefined;
  return {
    ...(runs ? { runIds: runs } : {}),
    kind: Array.isArray((body as { runs?: unknown }).runs) ? "batch" : response.status === 202 ? "agent" : response.status === 204 ? "skip" : body.pong === true ? "pong" : "wake",
    runId: typeof body.runId === "string" ? body.runId : undefined,
    mappingId: typeof body.mapping === "string" ? body.mapping : undefined,
  };
}

export interface HookHandlerDeps {
  config: ResolvedHooksConfig;
  runtime: HostRuntime;
  dispatcher: Dispatcher;
  mappings?: MappedHookResolver;
  idGen?: () => string;
}

/** A mapping's rendered `response`: its status, and its body (the default body when it sets none). */
function rendered(r: ReturnType<ResponseRenderer>, fallback: HookResponse): HookResponse {
  return { status: r.status, body: r.body === undefined ? fallback.body : r.body };
}

function notFound(config: ResolvedHooksConfig, name: string) {
  const hooksPath = config.path;
  return /^[\w.~@:/-]{1,100}$/.test(name) ? hookErrors.noHookMatches({ hookPath: `${hooksPath}/${name}`, hooksPath }) : hookErrors.noHookMatchesThisPath({ hooksPath });
}

export function createHookHandler(deps: HookHandlerDeps): HookHandler {
  const { config, dispatcher } = deps;
  const vctx: ValidationContext = { runtime: deps.runtime, config, idGen: deps.idGen };

  async function dispatch(ctx: HookRequestContext, action: HookAction, source: ActionSource, waitable = true): Promise<HookResponse> {
    const mapping = source.mappingId !== undefined ? { mapping: source.mappingId } : {};
    if (action.kind === "wake") {
      const r = await dispatcher.wake(action, source);
      if (!r.ok) throw r.error;
      const mode = r.value.kind === "wake" ? r.value.mode : action.mode;
      ctx.outcome.kind = "wake";
      return { status: 200, body: { ok: true, mode, ...mapping } };
    }
    const r = await dispatcher.agent(action, source, ctx.idempotencyKey !== undefined ? { idempotencyKey: ctx.idempotencyKey } : undefined);
    if (!r.ok) throw r.error;
    if (r.value.kind !== "agent") throw new Error("dispatcher.agent returned a non-agent result");
    ctx.outcome.kind = "agent";
    ctx.outcome.runId = r.value.runId;
    if (waitable) ctx.awaitRun?.(r.value.runId);
    return { status: 202, body: acceptedRunBody({ id: r.value.runId, sessionKey: r.value.sessionKey, mappingId: source.mappingId }) };
  }

  async function handleMapped(ctx: HookRequestContext, name: string): Promise<HookResponse> {
    if (!deps.mappings) throw notFound(config, name);
    const resolved = await deps.mappings.resolve({
      name,
      payload: ctx.payload,
      headers: ctx.headers,
      query: ctx.query,
      url: ctx.url,
      requestId: ctx.requestId,
    });
    if (!resolved.ok) throw resolved.error;
    const outcome = resolved.value;
    if (outcome.kind === "no_match") throw notFound(config, name);
    ctx.outcome.mappingId = outcome.mappingId;
    if (outcome.kind === "skip") {
      ctx.outcome.kind = "skip";
      return { status: 204 };
    }
    if (outcome.kind === "pong") {
      ctx.outcome.kind = "pong";
      return { status: 200, body: { ok: true, pong: true } };
    }
    if (outcome.kind === "challenge") {
      ctx.outcome.kind = "handshake";
      return { status: 200, body: outcome.body };
    }
    const source = (allowUnsafeExternalContent: boolean): ActionSource => ({ hook: name, mappingId: outcome.mappingId, requestId: ctx.requestId, allowUnsafeExternalContent });
    if (outcome.kind === "batch") {
      const fan = await dispatchFanOut({ items: outcome.items, mappingId: outcome.mappingId, idempotencyKey: ctx.idempotencyKey, source: (item) => source(item.allowUnsafeExternalContent) }, dispatcher, vctx);
      ctx.outcome.kind = "batch";
      ctx.outcome.runIds = fan.runs.map((r) => r.runId);
      return outcome.response ? rendered(outcome.response({ runs: fan.runs, events: fan.events }), fan.response) : fan.response;
    }
    const action = validateAction(outcome.raw, vctx, `action of mapping ${outcome.mappingId}`);
    if (!action.ok) throw action.error;
    const answer = await dispatch(ctx, action.value, source(outcome.allowUnsafeExternalContent), outcome.response === undefined);
    if (!outcome.response) return answer;
    const accepted = (answer.body ?? {}) as { runId?: string; sessionKey?: string };
    return rendered(outcome.response({ ...(accepted.runId ? { runId: accepted.runId, sessionKey: accepted.sessionKey } : {}) }), answer);
  }

  return async function handleHook(ctx) {
    const direct: ActionSource = { hook: ctx.name, requestId: ctx.requestId, allowUnsafeExternalContent: false };
    switch (ctx.route.kind) {
      case "wake": {
        const action = validateWake(ctx.payload);
        if (!action.ok) throw action.error;
        return dispatch(ctx, action.value, direct);
      }
      case "agent": {
        const action = validateAgent(ctx.payload, vctx);
        if (!action.ok) throw action.error;
        return dispatch(ctx, action.value, direct);
      }
      case "mapped":
        return handleMapped(ctx, ctx.route.name);
    }
  };
}

/** The runs an outcome started: one for an agent, each item's for a fan-out. */
export function outcomeRunIds(outcome: HookOutcome): string[] {
  return outcome.runIds ?? (outcome.runId !== undefined ? [outcome.runId] : []);
}
