/** `GET {path}/runs/<id>` (SPEC §7): the public view of one run. */
import { hookErrors } from "../core/errors";
import { toRunView } from "../core/runs";
import type { HookResponse, RunLookup } from "../core/ports";
import { storageFaultCode, storageUnavailable } from "../core/storage-fault";

/** 200 `{ ok: true, run }`, or throws `not_found` (503 `storage_unavailable` when a remote store cannot be reached). */
export async function lookupRun(runs: RunLookup | undefined, runId: string): Promise<HookResponse> {
  let record: Awaited<ReturnType<RunLookup["get"]>>;
  try {
    record = await runs?.get(runId);
  } catch (e) {
    if (storageFaultCode(e)) throw storageUnavailable(e);
    throw e;
  }
  if (!record) throw hookErrors.runNotFound();
  return { status: 200, body: { ok: true, run: toRunView(record) } };
}
