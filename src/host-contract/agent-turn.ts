/**
 * The host contract's agent turn (`runtime.agents.runTurn`, docs/host-contract.md): what the plugin asks of the
 * host's runner and how a turn ends. Re-exported by host-api.ts, kept apart to keep that file within its size.
 */

/** Levels of reasoning effort a run can ask for (the request field, mapping and `hooks.mail` key `thinking`). */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

export interface RunTurnRequest {
  sessionKey: string;
  message: string;
  /** Resolved model ref (`provider/model`); absent → host default. */
  model?: string;
  thinking?: ThinkingLevel;
  timeoutMs: number;
  /** Aborted when the run times out or is cancelled; runners must honour it. */
  signal: AbortSignal;
  /** The plugin's id of the run, the same at every start of it (added in 1.4; hosts may ignore it). */
  runId?: string;
  /** (1.5) The agent the turn runs on, one of `agents.known()`; absent: the host's default agent. */
  agentId?: string;
}

/** `runtime.agents.known()`: the agents a run may name (`agentId`), and the one a run without one uses. */
export interface KnownAgents {
  ids: readonly string[];
  defaultId: string;
}

/**
 * A turn's end. `unavailable` (2.0): the host could not take or finish the turn because it is going away (it
 * drains for a stop or a restart, or reloads the plugin) — not the run's failure: the run layer never records
 * it `failed`. `started` says whether the turn had begun in the host (false: the host refused to start it).
 */
export interface RunTurnResult {
  status: "ok" | "error" | "timeout" | "unavailable";
  reply?: string;
  error?: string;
  /** With `unavailable`: true when the host had started the turn before it became unavailable. */
  started?: boolean;
}
