/**
 * Dispatch of a forEach request (SPEC §12): every element is validated first (a bad
 * one refuses the whole request, its problems named `items[<index>].<field>`), then
 * the agent runs are stored in one transaction — all accepted or none (503 when
 * they do not all fit the queue) — then the wake events are posted in order.
 * Each run's idempotency key is `<request key>#<index>`.
 *
 * Answer: `{ ok: true, runs: [{ index, runId, sessionKey }], events, mapping }`,
 * 202 when at least one run was started, else 200; skipped elements (a transform
 * returned null) have no entry.
 */
import { validateAction, type ValidationContext } from "../../actions/validate";
import type { ActionSource, AgentAction, WakeAction } from "../../core/actions";
import { hookErrors, type ErrorDetail, type HookError } from "../../core/errors";
import type { BatchItem, Dispatcher, HookResponse } from "../../core/ports";
import { withNotApplied } from "./not-applied";

export interface FanOutInput {
  items: readonly BatchItem[];
  mappingId: string;
  /** The request's `runIdempotencyKey(scope, key)`, when it has one. */
  idempotencyKey?: string;
  source: (item: BatchItem) => ActionSource;
}

export interface FanOutResult {
  response: HookResponse;
  runs: Array<{ index: number; runId: string; sessionKey: string }>;
  events: number;
}

/**
 * The refusal of a fan-out's bad elements: every problem named `items[<index>].<field>`.
 * As for a single action (validationError), a model outside the allow-list or a channel
 * the host does not offer keeps its own code when it is the only problem; anything more
 * is `invalid_payload` listing them all.
 */
function itemsRefused(problems: ErrorDetail[], codes: ReadonlySet<HookError["code"]>, mappingId: string): HookError {
  if (problems.length === 1 && codes.has("model_not_allowed")) return hookErrors.modelNotAllowed({ problem: problems[0].message }, { details: problems });
  if (problems.length === 1 && codes.has("channel_unavailable")) return hookErrors.channelUnavailable({ problem: problems[0].message }, { details: problems });
  if (problems.length === 1 && codes.has("agent_not_allowed")) return hookErrors.agentNotAllowed({ problem: problems[0].message }, { details: problems });
  return hookErrors.invalidFields(
    { subject: `items of mapping ${mappingId}`, count: problems.length, problems: problems.map((p) => p.message).join("; ") },
    { details: problems },
  );
}

export async function dispatchFanOut(input: FanOutInput, dispatcher: Dispatcher, validation: ValidationContext): Promise<FanOutResult> {
  const agents: Array<{ index: number; action: AgentAction; source: ActionSource; idempotencyKey?: string }> = [];
  const wakes: Array<{ action: WakeAction; source: ActionSource }> = [];
  const problems: ErrorDetail[] = [];
  const codes = new Set<HookError["code"]>();
  for (const item of input.items) {
    if (!item.raw) continue;
    const v = validateAction(item.raw, validation, `item ${item.index} of mapping ${input.mappingId}`);
    if (!v.ok) {
      codes.add(v.error.code);
      for (const d of v.error.details ?? [{ field: "", message: v.error.message }])
        problems.push({ field: `items[${item.index}]${d.field ? `.${d.field}` : ""}`, message: d.message });
      continue;
    }
    const source = input.source(item);
    if (v.value.kind === "wake") wakes.push({ action: v.value, source });
    else
      agents.push({
        index: item.index,
        action: v.value,
        source,
        ...(input.idempotencyKey !== undefined ? { idempotencyKey: `${input.idempotencyKey}#${item.index}` } : {}),
      });
  }
  if (problems.length > 0) throw itemsRefused(problems, codes, input.mappingId);
  const accepted = await dispatcher.agentBatch(
    agents.map(({ action, source, idempotencyKey }) => ({ action, source, ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) })),
  );
  if (!accepted.ok) throw accepted.error;
  const runs = accepted.value.map((r, i) => ({ index: agents[i].index, runId: r.runId, sessionKey: r.sessionKey }));
  for (const w of wakes) {
    const r = await dispatcher.wake(w.action, w.source);
    if (!r.ok) throw r.error;
  }
  return {
    runs,
    events: wakes.length,
    response: withNotApplied(
      { status: runs.length > 0 ? 202 : 200, body: { ok: true, runs, events: wakes.length, mapping: input.mappingId } },
      agents.map((a) => a.action),
      validation.runtime,
    ),
  };
}
