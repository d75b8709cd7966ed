/** `GET {path}/runs/<id>` (SPEC §7): the public view of one run. */
import { hookErrors } from "../core/errors";
import { toRunView } from "../core/runs";
import type { HookResponse, RunLookup } from "../core/ports";

/** 200 `{ ok: true, run }`, or throws `not_found`. */
export function lookupRun(runs: RunLookup | undefined, runId: string): HookResponse {
  const record = runs?.get(runId);
  if (!record) throw hookErrors.runNotFound();
  return { status: 200, body: { ok: true, run: toRunView(record) } };
}
