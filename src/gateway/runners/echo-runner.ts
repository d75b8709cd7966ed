/**
 * The offline, deterministic default runner: replies `echo: <message>`.
 * `delayMs` (config `agents.runner.delayMs`) makes each turn take that long,
 * honouring the abort signal, so slow runs and timeouts can be exercised.
 */
import { abortableDelay, type AgentRunner } from "./agent-runner";

export interface EchoRunnerOptions {
  delayMs?: number;
}

export function createEchoRunner(opts: EchoRunnerOptions = {}): AgentRunner {
  const delayMs = opts.delayMs ?? 0;
  return {
    kind: "echo",
    async run(turn) {
      if (delayMs > 0) await abortableDelay(delayMs, turn.signal);
      return { status: "ok", reply: `echo: ${turn.message}` };
    },
  };
}
