/**
 * A Dispatcher double that records what the pipeline dispatches and answers
 * like the real one (wake → mode, agent and agentBatch → runId + sessionKey), or with a
 * scripted error.
 */
import type { ActionSource, AgentAction, DispatchResult, WakeAction } from "../../src/core/actions";
import { err, ok, type HookError, type Result } from "../../src/core/errors";
import type { Dispatcher } from "../../src/core/ports";

export interface RecordingDispatcher extends Dispatcher {
  wakes: Array<{ action: WakeAction; source: ActionSource }>;
  agents: Array<{ action: AgentAction; source: ActionSource; opts?: { idempotencyKey?: string } }>;
  /** The next dispatch (wake or agent) fails with this error. */
  failNext(error: HookError): void;
  /** The next dispatch throws this (an unexpected failure). */
  throwNext(error: Error): void;
}

export function createRecordingDispatcher(options: { runIds?: () => string } = {}): RecordingDispatcher {
  let n = 0;
  const runIds = options.runIds ?? (() => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`);
  let nextFailure: HookError | undefined;
  let nextThrow: Error | undefined;
  const take = (): HookError | undefined => {
    if (nextThrow) {
      const e = nextThrow;
      nextThrow = undefined;
      throw e;
    }
    const f = nextFailure;
    nextFailure = undefined;
    return f;
  };
  const d: RecordingDispatcher = {
    wakes: [],
    agents: [],
    failNext(error) {
      nextFailure = error;
    },
    throwNext(error) {
      nextThrow = error;
    },
    async wake(action, source): Promise<Result<DispatchResult>> {
      const failure = take();
      if (failure) return err(failure);
      d.wakes.push({ action, source });
      return ok({ kind: "wake", mode: action.mode });
    },
    async agent(action, source, opts): Promise<Result<DispatchResult>> {
      const failure = take();
      if (failure) return err(failure);
      d.agents.push({ action, source, opts });
      return ok({ kind: "agent", runId: runIds(), sessionKey: action.sessionKey });
    },
    async agentBatch(runs) {
      const failure = take();
      if (failure) return err(failure);
      for (const r of runs)
        d.agents.push({ action: r.action, source: r.source, opts: r.idempotencyKey === undefined ? undefined : { idempotencyKey: r.idempotencyKey } });
      return ok(runs.map((r) => ({ kind: "agent" as const, runId: runIds(), sessionKey: r.action.sessionKey })));
    },
  };
  return d;
}
