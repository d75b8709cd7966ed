/**
 * What an accepted run asked for that its host does not apply (SPEC §15: never silently): a run with
 * `thinking` on a host whose turns take no thinking level (`runtime.agents.thinkingNotApplied`, OpenClaw's
 * subagent runtime) is accepted, and its answer says so — a `warnings` entry in the body
 * (`{ field, message }`, like `details`) and a `Warning: 299` header (RFC 7234 §5.5) with the same sentence.
 * The warning is part of the stored answer: an idempotent replay repeats it.
 *
 * @example
 *   withNotApplied({ status: 202, body: { ok: true, runId } }, [action], runtime)
 *   // { status: 202, body: { ok: true, runId, warnings: [{ field: "thinking", message: "thinking (high) was not applied: …" }] },
 *   //   headers: { Warning: '299 - "thinking (high) was not applied: …"' } }
 */
import type { AgentAction } from "../../core/actions";
import type { ErrorDetail } from "../../core/errors";
import type { HookResponse } from "../../core/ports";
import type { HostRuntime } from "../../host-contract/host-api";

/** The warnings of `actions` on `runtime`, one per field and level, in order. */
export function notApplied(actions: readonly AgentAction[], runtime: HostRuntime): ErrorDetail[] {
  const why = runtime.agents.thinkingNotApplied;
  if (why === undefined) return [];
  const levels = [...new Set(actions.flatMap((a) => (a.thinking !== undefined ? [a.thinking] : [])))];
  return levels.map((level) => ({ field: "thinking", message: `thinking (${level}) was not applied: ${why}` }));
}

/** A Warning header value: printable ASCII, no quote or backslash inside its quoted text. */
function warnText(message: string): string {
  return message.replace(/[^ -~]|["\\]/g, "'");
}

/** `response` with the warnings of `actions` (unchanged when there are none; a body that is not a JSON object gets the header only). */
export function withNotApplied(response: HookResponse, actions: readonly AgentAction[], runtime: HostRuntime): HookResponse {
  const warnings = notApplied(actions, runtime);
  if (warnings.length === 0) return response;
  const header = warnings.map((w) => `299 - "${warnText(w.message)}"`).join(", ");
  const body = response.body;
  const withBody = body !== null && typeof body === "object" && !Array.isArray(body) ? { ...(body as Record<string, unknown>), warnings } : body;
  return { ...response, body: withBody, headers: { ...(response.headers ?? {}), Warning: header } };
}
