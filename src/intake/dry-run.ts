/**
 * The dry run of a mapped hook (SPEC §4.1 "One accept path"; docs/mappings.md "Dry
 * run"): a request (hook name, body bytes, headers, query) goes through the accept
 * path live requests and replay take (src/intake/accept.ts: body parsing of
 * every media type, the mapping selected once, templates rendered and transforms
 * run, validation, the fan-out's checks, the mapping's `response`) with a dispatcher
 * that only records: nothing is stored, no run starts, no system event is posted,
 * and idempotency is off (as in a replay). The report is built from what accept
 * answered, the mapping's resolved outcome and the recorded actions — or says why
 * the hook would fail.
 *
 * No I/O of its own and no CLI: `gateway webhooks test` (src/cli/webhooks-test.ts)
 * and the hook inspector (src/plugin/hook-inspector.ts, the dashboard's form) print
 * its result.
 *
 * @example
 *   const r = await dryRunHook({ name: "github", body, headers: { "x-github-event": "push" }, query: {} }, { config, mappings, runtime });
 *   if (r.ok) console.log(formatDryRun(r.value));
 */
import type { HooksConfig } from "../config/types";
import type { ActionSource, HookAction } from "../core/actions";
import { err, ok, type ErrorCode, type ErrorDetail, type Result } from "../core/errors";
import { hookNameOf } from "../core/hook-name";
import type { Dispatcher, MappedHookInput, MappedHookOutcome, MappedHookResolver, MappingSelection } from "../core/ports";
import type { HostRuntime } from "../host-contract/host-api";
import { dryRunFailures, type DryRunFailure } from "../mappings/dry-run-failures";
import { formatMappingList, type DryRunItem, type DryRunReport } from "../mappings/dry-run-report";
import type { MappingEngine } from "../mappings/engine";
import { RESERVED_HOOK_NAMES } from "../mappings/match";
import { MAPPED_FALLBACK_CHANNEL } from "../runs/delivery";
import { createAccept } from "./accept";
import { hookRequestOf, type Answer } from "./hook-request";
import { createRespond } from "./validate-and-dispatch";

export type { DryRunFailure };

export interface DryRunRequest {
  /** The hook name: the sub-path after `hooks.path` (normalised like a request's, SPEC §4.1). */
  name: string;
  /** The raw body, parsed like a request body of its `headers["content-type"]` (JSON without one). */
  body: Buffer;
  /** Header names in lower case. */
  headers: Record<string, string>;
  query: Record<string, string>;
}

export interface DryRunDeps {
  config: HooksConfig;
  runtime: HostRuntime;
  mappings: Pick<MappingEngine, "select" | "describe" | "verifications">;
}

/** What the accept path did on the way, as the report reads it. */
interface Trace {
  selection?: MappingSelection;
  resolved?: Result<MappedHookOutcome>;
  /** The actions the dispatcher was handed, in dispatch order. */
  recorded: Array<{ action: HookAction; source: ActionSource }>;
}

const detailLines = (details: ErrorDetail[] | undefined): string[] => (details ?? []).map((d) => `  - ${d.field}: ${d.message}`);

/** The resolver accept() asks, keeping what the mapping resolved to. */
function tracingResolver(mappings: DryRunDeps["mappings"], trace: Trace): MappedHookResolver {
  return {
    select(input: MappedHookInput) {
      const selection = mappings.select(input, { dryRun: true });
      if (!selection) return undefined;
      trace.selection = selection;
      return { ...selection, resolve: async () => (trace.resolved = await selection.resolve()) };
    },
  };
}

/** A dispatcher that only records: placeholder run ids (`<run id>`, `<run id N>` for item N of a fan-out). */
function recordingDispatcher(trace: Trace): Dispatcher {
  // A fan-out hands its agent runs over in item order: the items whose action is an agent.
  const agentItems = (): number[] => {
    const r = trace.resolved;
    return r?.ok && r.value.kind === "batch" ? r.value.items.flatMap((i) => (i.raw?.kind === "agent" ? [i.index] : [])) : [];
  };
  return {
    async wake(action, source) {
      trace.recorded.push({ action, source });
      return ok({ kind: "wake", mode: action.mode });
    },
    async agent(action, source) {
      trace.recorded.push({ action, source });
      return ok({ kind: "agent", runId: "<run id>", sessionKey: action.sessionKey });
    },
    async agentBatch(runs) {
      const indices = agentItems();
      for (const r of runs) trace.recorded.push({ action: r.action, source: r.source });
      return ok(runs.map((r, i) => ({ kind: "agent" as const, runId: `<run id ${indices[i] ?? i}>`, sessionKey: r.action.sessionKey })));
    },
  };
}

/** Why the hook would refuse the request, from accept's refusal. */
function refusalOf(answer: Answer, hook: string, trace: Trace, deps: DryRunDeps): DryRunFailure {
  const body = answer.body as { code: ErrorCode; error: string; details?: ErrorDetail[] };
  const code = body.code;
  const lines = detailLines(body.details);
  if (answer.outcome.stage === "body") return dryRunFailures.invalidBody({ error: body.error, code }, { code });
  const resolved = trace.resolved;
  if (!trace.selection || (resolved?.ok && resolved.value.kind === "no_match")) {
    return dryRunFailures.noMappingMatches({ hook }, { lines: formatMappingList(deps.mappings.describe()).split("\n"), code: "not_found" });
  }
  // The mapping resolved to an action, so what refused it is validation (a fan-out's checks included).
  if (resolved?.ok)
    return dryRunFailures.actionInvalid({ mappingId: trace.selection.mappingId, status: answer.status, code, error: body.error }, { lines, code });
  return dryRunFailures.hookWouldFail({ status: answer.status, code, error: body.error }, { lines, code });
}

/** The items of a fan-out: each element's recorded action (wakes and agents were handed over in item order). */
function batchItems(outcome: Extract<MappedHookOutcome, { kind: "batch" }>, trace: Trace): DryRunItem[] {
  const wakes = trace.recorded.filter((r) => r.action.kind === "wake");
  const agents = trace.recorded.filter((r) => r.action.kind === "agent");
  return outcome.items.map((item): DryRunItem => {
    const recorded = item.raw?.kind === "wake" ? wakes.shift() : item.raw ? agents.shift() : undefined;
    if (!recorded) return { index: item.index, skipped: true };
    return { index: item.index, action: recorded.action, allowUnsafeExternalContent: item.allowUnsafeExternalContent };
  });
}

/** The report of a request accept() accepted. */
function acceptedReport(answer: Answer, hook: string, trace: Trace, deps: DryRunDeps): DryRunReport {
  const resolved = trace.resolved;
  if (!resolved?.ok || resolved.value.kind === "no_match") throw new Error(`dry run of "${hook}": accepted without a resolved mapping`);
  const outcome = resolved.value;
  const described = deps.mappings.describe().find((m) => m.id === outcome.mappingId);
  // The path's signature is not checked (the dry run has no signed request); the report says so.
  const verified = deps.mappings.verifications().find((v) => v.path === hook);
  const base = {
    hook,
    mapping: { id: outcome.mappingId, key: described?.key ?? outcome.mappingId },
    ...(verified ? { signature: { scheme: verified.config.scheme, key: verified.key } } : {}),
    ...(deps.runtime.channels.list().includes(MAPPED_FALLBACK_CHANNEL) ? { lastRouteFallback: MAPPED_FALLBACK_CHANNEL } : {}),
  };
  const response = { status: answer.status, body: answer.body };
  switch (outcome.kind) {
    case "skip":
      return { ...base, outcome: "skip", ...(outcome.reason ? { skipReason: outcome.reason } : {}), dispatched: false };
    case "pong":
      return { ...base, outcome: "pong", dispatched: false };
    case "challenge":
      return { ...base, outcome: "handshake", response, dispatched: false };
    case "batch":
      return { ...base, outcome: "batch", forEach: outcome.path, items: batchItems(outcome, trace), response, dispatched: false };
    case "action": {
      const action = trace.recorded[0]?.action;
      if (!action) throw new Error(`dry run of "${hook}": accepted without a dispatched action`);
      return {
        ...base,
        outcome: "action",
        action,
        allowUnsafeExternalContent: outcome.allowUnsafeExternalContent,
        ...(action.kind === "agent" ? { sessionKeyGenerated: outcome.raw.sessionKey === undefined } : {}),
        ...(outcome.response ? { response } : {}),
        dispatched: false,
      };
    }
  }
}

/** Runs one dry run through the accept path. Never dispatches; never throws for a bad request (only for a bug). */
export async function dryRunHook(req: DryRunRequest, deps: DryRunDeps): Promise<Result<DryRunReport, DryRunFailure>> {
  const named = hookNameOf(`/${req.name}`);
  if (!named.ok) return err(dryRunFailures.noMappingMatches({ hook: req.name }, { code: "not_found" }));
  const hook = named.name;
  if (RESERVED_HOOK_NAMES.has(hook)) return err(dryRunFailures.directEndpoint({ hook }));

  const trace: Trace = { recorded: [] };
  const respond = createRespond({ config: deps.config, runtime: deps.runtime, dispatcher: recordingDispatcher(trace) });
  const accept = createAccept({ config: deps.config, respond, mappings: tracingResolver(deps.mappings, trace) });
  const qs = new URLSearchParams(Object.entries(req.query).filter(([k]) => k.toLowerCase() !== "token")).toString();
  const encoded = hook.split("/").map(encodeURIComponent).join("/");
  const line = { requestId: "dry-run", method: "POST", url: `${deps.config.path}/${encoded}${qs ? `?${qs}` : ""}`, headers: req.headers, client: "dry-run" };
  // The request live would be, with the query as given (hookRequestOf reads it from the URL, which leaves the token out).
  const request = { ...hookRequestOf(line, deps.config.path), query: req.query };
  const route = request.route.ok ? request.route.route : undefined;
  if (route?.kind !== "mapped") return err(dryRunFailures.noMappingMatches({ hook }, { code: "not_found" }));
  // A verified path's signature is not checked, but its scheme keys idempotency as it does live.
  const verified = deps.mappings.verifications().find((v) => v.path === hook);
  const answer = await accept(request, route, req.body, { idempotency: false, ...(verified ? { verifiedBy: { scheme: verified.config.scheme } } : {}) });
  return answer.outcome.kind === "refused" ? err(refusalOf(answer, hook, trace, deps)) : ok(acceptedReport(answer, hook, trace, deps));
}
