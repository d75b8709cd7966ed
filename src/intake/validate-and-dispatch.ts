/**
 * The end of the accept path: route → validate → dispatch, once the body is parsed,
 * the mapping selected and the idempotency key known (src/intake/accept.ts).
 * Returns the response and what the request did, both as values (nothing is filled
 * in behind the caller's back). Expected failures are thrown as HookErrors so the
 * idempotency guard, which wraps this, stores only successful responses.
 */
import { validateAction, validateAgent, validateWake, type ValidationContext } from "../actions/validate";
import type { Payload } from "../actions/body/parse-body";
import type { ActionSource, HookAction } from "../core/actions";
import type { HooksConfig } from "../config/types";
import { hookErrors } from "../core/errors";
import type { AcceptedKind } from "../core/outcome";
import type { HostRuntime } from "../host-contract/host-api";
import { acceptedRunBody, type Dispatcher, type HookResponse, type MappingSelection, type ResponseRenderer } from "../core/ports";
import type { HookRoute, LedgerRoute } from "../core/hook-route";
import { dispatchFanOut } from "./responses/fan-out-dispatch";
import { withNotApplied } from "./responses/not-applied";

/** What the request did, as the Outcome reads it. */
export interface Effect {
  kind: AcceptedKind;
  mappingId?: string;
  runIds: string[];
}

export interface Responded {
  response: HookResponse;
  effect: Effect;
}

export interface RespondInput {
  requestId: string;
  route: Exclude<HookRoute, LedgerRoute>;
  /** The hook's one name. */
  hook: string;
  payload: Payload;
  /** The matching mapping (mapped hooks); undefined when none matches (404). */
  selection?: MappingSelection;
  /** `runIdempotencyKey(scope, key)` when the request carries an idempotency key. */
  idempotencyKey?: string;
  /** Called with the run id right after a single run was accepted (Prefer: wait); not for fan-out or a mapping's own `response`. */
  awaitRun?: (runId: string) => void;
}

export interface RespondDeps {
  config: HooksConfig;
  runtime: HostRuntime;
  dispatcher: Dispatcher;
  idGen?: () => string;
}

export type Respond = (input: RespondInput) => Promise<Responded>;

/** A mapping's rendered `response`: its status, and its body (the default body when it sets none). */
function rendered(r: ReturnType<ResponseRenderer>, fallback: HookResponse): HookResponse {
  return { status: r.status, body: r.body === undefined ? fallback.body : r.body };
}

function notFound(config: HooksConfig, name: string) {
  const hooksPath = config.path;
  return /^[\w.~@:/-]{1,100}$/.test(name)
    ? hookErrors.noHookMatches({ hookPath: `${hooksPath}/${name}`, hooksPath })
    : hookErrors.noHookMatchesThisPath({ hooksPath });
}

export function createRespond(deps: RespondDeps): Respond {
  const { config, dispatcher } = deps;
  const validation: ValidationContext = { runtime: deps.runtime, config, idGen: deps.idGen };

  async function dispatch(input: RespondInput, action: HookAction, source: ActionSource, waitable = true): Promise<Responded> {
    const mapping = source.mappingId !== undefined ? { mapping: source.mappingId } : {};
    const mappingId = source.mappingId !== undefined ? { mappingId: source.mappingId } : {};
    if (action.kind === "wake") {
      const r = await dispatcher.wake(action, source);
      if (!r.ok) throw r.error;
      const mode = r.value.kind === "wake" ? r.value.mode : action.mode;
      return { response: { status: 200, body: { ok: true, mode, ...mapping } }, effect: { kind: "wake", runIds: [], ...mappingId } };
    }
    const r = await dispatcher.agent(action, source, input.idempotencyKey !== undefined ? { idempotencyKey: input.idempotencyKey } : undefined);
    if (!r.ok) throw r.error;
    if (r.value.kind !== "agent") throw new Error("dispatcher.agent returned a non-agent result");
    if (waitable) input.awaitRun?.(r.value.runId);
    const body = acceptedRunBody({ id: r.value.runId, sessionKey: r.value.sessionKey, mappingId: source.mappingId });
    // What the host does not apply of the run (thinking inside OpenClaw) is said in the 202, never dropped silently.
    const response = withNotApplied({ status: 202, body }, [action], deps.runtime);
    return { response, effect: { kind: "agent", runIds: [r.value.runId], ...mappingId } };
  }

  async function mapped(input: RespondInput): Promise<Responded> {
    if (!input.selection) throw notFound(config, input.hook);
    const resolved = await input.selection.resolve();
    if (!resolved.ok) throw resolved.error;
    const outcome = resolved.value;
    if (outcome.kind === "no_match") throw notFound(config, input.hook);
    const { mappingId } = outcome;
    if (outcome.kind === "skip") return { response: { status: 204 }, effect: { kind: "skip", mappingId, runIds: [] } };
    if (outcome.kind === "pong") return { response: { status: 200, body: { ok: true, pong: true } }, effect: { kind: "pong", mappingId, runIds: [] } };
    if (outcome.kind === "challenge") return { response: { status: 200, body: outcome.body }, effect: { kind: "handshake", mappingId, runIds: [] } };
    const source = (allowUnsafeExternalContent: boolean): ActionSource => ({
      hook: input.hook,
      mappingId,
      requestId: input.requestId,
      allowUnsafeExternalContent,
    });
    if (outcome.kind === "batch") {
      const fan = await dispatchFanOut(
        { items: outcome.items, mappingId, idempotencyKey: input.idempotencyKey, source: (item) => source(item.allowUnsafeExternalContent) },
        dispatcher,
        validation,
      );
      const response = outcome.response ? rendered(outcome.response({ runs: fan.runs, events: fan.events }), fan.response) : fan.response;
      return { response, effect: { kind: "batch", mappingId, runIds: fan.runs.map((r) => r.runId) } };
    }
    const action = validateAction(outcome.raw, validation, `action of mapping ${mappingId}`);
    if (!action.ok) throw action.error;
    const answer = await dispatch(input, action.value, source(outcome.allowUnsafeExternalContent), outcome.response === undefined);
    if (!outcome.response) return answer;
    const accepted = (answer.response.body ?? {}) as { runId?: string; sessionKey?: string };
    const vars = accepted.runId ? { runId: accepted.runId, sessionKey: accepted.sessionKey } : {};
    // A mapping's own body is the sender's; a warning of the default answer (thinking not applied) stays in its header.
    const headers = answer.response.headers ? { headers: answer.response.headers } : {};
    return { response: { ...rendered(outcome.response(vars), answer.response), ...headers }, effect: answer.effect };
  }

  return async function respond(input) {
    const direct: ActionSource = { hook: input.hook, requestId: input.requestId, allowUnsafeExternalContent: false };
    switch (input.route.kind) {
      case "wake": {
        const action = validateWake(input.payload);
        if (!action.ok) throw action.error;
        return dispatch(input, action.value, direct);
      }
      case "agent": {
        const action = validateAgent(input.payload, validation);
        if (!action.ok) throw action.error;
        return dispatch(input, action.value, direct);
      }
      case "mapped":
        return mapped(input);
    }
  };
}
