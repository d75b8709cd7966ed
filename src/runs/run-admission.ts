/**
 * The checks a run passes before the queue stores it (SPEC §5.1, §7), and the
 * refusals when it cannot be stored: shutting down, a run addressed to the main
 * session (defence in depth behind §5.1 confinement), a full queue (503
 * `overloaded` with `Retry-After`), a store that fails (503 `storage_unavailable`
 * for a storage fault, else 500 `run_not_stored`).
 */
import { hookErrors, type HookError } from "../core/errors";
import type { ModuleLogger } from "../core/logger";
import type { RunRecord } from "../core/runs";
import { errorCode, storageFaultCode, storageUnavailable } from "../core/storage-fault";

export interface RunAdmission {
  /** True once the queue is stopping or stopped. */
  stopping: boolean;
  /** The host's main session key: no hook run may use it. */
  mainKey: string;
  /** Runs queued now (staged inserts included). */
  depth: number;
  maxQueued: number;
  /** `Retry-After` of an `overloaded` refusal, in seconds. */
  retryAfter: string;
  logger: ModuleLogger;
}

/** Why `runs` cannot be accepted now, or undefined when they can. */
export function refuseRuns(a: RunAdmission, runs: ReadonlyArray<Pick<RunRecord, "action" | "source">>): HookError | undefined {
  if (a.stopping) return hookErrors.shuttingDown();
  if (runs.some((r) => r.action.sessionKey === a.mainKey)) return hookErrors.sessionKeyIsMainSession();
  if (a.depth + runs.length > a.maxQueued) {
    const many = runs.length > 1 ? { runs: runs.length } : {};
    a.logger.warn("run refused: queue full", { code: "overloaded", queued: a.depth, ...many, maxQueued: a.maxQueued, requestId: runs[0]?.source.requestId });
    return hookErrors.overloaded({ maxQueued: a.maxQueued }, { headers: { "Retry-After": a.retryAfter } });
  }
  return undefined;
}

/** The refusal of a run the store could not take, logged without content. */
export function notStored(logger: ModuleLogger, e: unknown, source: RunRecord["source"]): HookError {
  const fault = storageFaultCode(e);
  logger.error("run could not be stored; not accepted", {
    code: fault ? "storage_unavailable" : "store_failed",
    cause: errorCode(e) ?? "unknown",
    requestId: source.requestId,
    error: e instanceof Error ? e.message : String(e),
  });
  return fault ? storageUnavailable(e) : hookErrors.runNotStored({ cause: e });
}
