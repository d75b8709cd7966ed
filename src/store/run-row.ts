/**
 * One row of the `runs` table turned back into a RunRecord, with a check of the
 * JSON columns: a row whose `action` or `source` is not valid JSON, or lacks a
 * field the queue and the executor rely on, is damaged state. It is reported
 * with the reason (never the row's content: it holds hook text) instead of
 * throwing deep inside recovery.
 *
 * @example
 *   const parsed = parseRunRow(row);
 *   if (!parsed.ok) logger.warn(`run ${row.id} is damaged: ${parsed.problem}`);
 */
import { isPlainObject } from "../core/plain-object";
import { WAKE_MODES } from "../core/actions";
import type { RunRecord, RunStatus } from "../core/runs";

export interface RunRow {
  id: string;
  seq: number;
  status: RunStatus;
  action: string;
  source: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  summary: string | null;
  error: string | null;
  idempotency_key: string | null;
  summary_pending: number;
  attempts: number;
  /** The action's name and session key (migration 11; NULL in a damaged row). */
  name?: string | null;
  session_key?: string | null;
}

const optionalString = (v: unknown) => v === undefined || typeof v === "string";

function parseJson(column: string, text: unknown): { ok: true; value: Record<string, unknown> } | { ok: false; problem: string } {
  if (typeof text !== "string") return { ok: false, problem: `its ${column} column is not text` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `its ${column} column is not valid JSON (${(e as Error).message})` };
  }
  return isPlainObject(value) ? { ok: true, value } : { ok: false, problem: `its ${column} column is not a JSON object` };
}

/** The first field of an agent action that the queue cannot use, or undefined. */
function actionProblem(a: Record<string, unknown>): string | undefined {
  if (a.kind !== "agent") return "kind";
  for (const f of ["message", "name", "sessionKey", "channel"]) if (typeof a[f] !== "string") return f;
  if (!(WAKE_MODES as readonly unknown[]).includes(a.wakeMode)) return "wakeMode";
  if (typeof a.deliver !== "boolean") return "deliver";
  if (typeof a.timeoutSeconds !== "number" || !(a.timeoutSeconds > 0)) return "timeoutSeconds";
  for (const f of ["to", "model", "thinking", "agentId"]) if (!optionalString(a[f])) return f;
  return undefined;
}

function sourceProblem(s: Record<string, unknown>): string | undefined {
  if (typeof s.hook !== "string") return "hook";
  if (typeof s.requestId !== "string") return "requestId";
  if (typeof s.allowUnsafeExternalContent !== "boolean") return "allowUnsafeExternalContent";
  if (!optionalString(s.mappingId)) return "mappingId";
  return undefined;
}

/** The run of a row, or why the row cannot be used. */
export function parseRunRow(row: RunRow): { ok: true; run: RunRecord } | { ok: false; problem: string } {
  const action = parseJson("action", row.action);
  if (!action.ok) return action;
  const badAction = actionProblem(action.value);
  if (badAction) return { ok: false, problem: `its action has no valid ${badAction}` };
  const source = parseJson("source", row.source);
  if (!source.ok) return source;
  const badSource = sourceProblem(source.value);
  if (badSource) return { ok: false, problem: `its source has no valid ${badSource}` };
  const run: RunRecord = {
    id: row.id,
    status: row.status,
    seq: row.seq,
    action: action.value as unknown as RunRecord["action"],
    source: source.value as unknown as RunRecord["source"],
    createdAt: row.created_at,
  };
  if (row.started_at !== null) run.startedAt = row.started_at;
  if (row.finished_at !== null) run.finishedAt = row.finished_at;
  if (row.summary !== null) run.summary = row.summary;
  if (row.error !== null) run.error = row.error;
  if (row.idempotency_key !== null) run.idempotencyKey = row.idempotency_key;
  if (row.summary_pending) run.summaryPending = true;
  if (row.attempts > 0) run.attempts = row.attempts;
  return { ok: true, run };
}
