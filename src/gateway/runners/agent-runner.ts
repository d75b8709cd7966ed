/**
 * What an agent runner does: one model call for one turn, given the session's
 * prior conversation. The gateway wraps runners with timeouts, per-session
 * ordering, history and the journal (see agent-turns.ts).
 */
import type { SystemEventMeta, ThinkingLevel } from "../../host-contract/host-api";
import type { ChatMessage } from "../sessions/session-store";

export interface RunnerTurn {
  sessionKey: string;
  /** Model ref as configured/requested (`provider/model`). */
  model?: string;
  thinking?: ThinkingLevel;
  /** Prior turns of this session, oldest first. */
  history: readonly ChatMessage[];
  message: string;
  signal: AbortSignal;
  /** Set for a heartbeat turn: the system events its message carries (with their meta), oldest first. */
  heartbeatEvents?: ReadonlyArray<{ meta?: SystemEventMeta }>;
}

export interface RunnerResult {
  status: "ok" | "error";
  reply?: string;
  error?: string;
}

export interface AgentRunner {
  readonly kind: string;
  run(turn: RunnerTurn): Promise<RunnerResult>;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
