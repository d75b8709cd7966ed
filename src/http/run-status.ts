/** `GET {path}/runs/<id>` (SPEC §7): the public view of one run. */
import { hookError } from "../core/errors";
import { toRunView } from "../core/runs";
import type { HookResponse, RunLookup } from "../core/ports";

/** 200 `{ ok: true, run }`, or throws `not_found`. */
export function lookupRun(runs: RunLookup | undefined, runId: string): HookResponse {
  const record = runs?.get(runId);
  if (!record) throw hookError("not_found", "No run with this id (unknown, or from before the run store was cleared).");
  return { status: 200, body: { ok: true, run: toRunView(record) } };
}
