/**
 * The offline, deterministic default runner (the demo's agent): replies
 * `echo: <message>`, with the untrusted-content wrapper's long notice folded to one
 * line (the message it was given — what a model would get — is unchanged). A
 * heartbeat whose events are all run summaries is answered `HEARTBEAT_OK`: the run's
 * reply was already delivered, so echoing its summary again would send a second
 * chat message for one hook. `delayMs` (config `agents.runner.delayMs`) makes each
 * turn take that long, honouring the abort signal, so slow runs and timeouts can be
 * exercised.
 */
import { HEARTBEAT_TOKEN, RUN_SUMMARY_EVENT_KIND } from "../../host-contract/heartbeat-ack";
import { foldUntrustedNotice } from "../../host-contract/untrusted-notice";
import { abortableDelay, type AgentRunner, type RunnerTurn } from "./agent-runner";

export interface EchoRunnerOptions {
  delayMs?: number;
}

/** A heartbeat that carries only run summaries (nothing new for the user). */
function onlyRunSummaries(turn: RunnerTurn): boolean {
  const events = turn.heartbeatEvents;
  return events !== undefined && events.length > 0 && events.every((e) => e.meta?.kind === RUN_SUMMARY_EVENT_KIND);
}

export function createEchoRunner(opts: EchoRunnerOptions = {}): AgentRunner {
  const delayMs = opts.delayMs ?? 0;
  return {
    kind: "echo",
    async run(turn) {
      if (delayMs > 0) await abortableDelay(delayMs, turn.signal);
      if (onlyRunSummaries(turn)) return { status: "ok", reply: HEARTBEAT_TOKEN };
      return { status: "ok", reply: `echo: ${foldUntrustedNotice(turn.message)}` };
    },
  };
}
