/**
 * `runtime.agents.runTurn` of the embedded gateway: runs one turn through the
 * configured runner with the session's history, one turn per session key at a
 * time (arrival order), bounded by `timeoutMs` and the caller's signal, and
 * journals an `agent_turn` entry. Successful turns extend the session history
 * (so the same key continues the conversation, also after a restart).
 */
import type { HostLogger, RunTurnRequest, RunTurnResult } from "../../host-contract/host-api";
import type { Journal } from "../journal/journal";
import type { ChatMessage, SessionStore } from "../sessions/session-store";
import type { AgentRunner, RunnerTurn } from "./agent-runner";

/** A turn as the gateway itself asks for it (the heartbeat): RunTurnRequest plus a prompt bound. */
export interface TurnRequest extends RunTurnRequest {
  /**
   * Characters the runner may be sent in all (history plus message): the oldest
   * history messages are left out of this call until it fits (they stay stored).
   */
  maxPromptChars?: number;
  /** A heartbeat turn: the system events its message carries, handed to the runner as they are. */
  heartbeatEvents?: RunnerTurn["heartbeatEvents"];
}

export interface TurnResult extends RunTurnResult {
  /** Characters sent to the runner (history plus message); 0 when no call was made. */
  promptChars: number;
}

export interface AgentTurns {
  /** `runtime.agents.runTurn`: the contract's request and result. */
  runTurn(req: RunTurnRequest): Promise<RunTurnResult>;
  /** The gateway's own turns (heartbeat): a prompt bound, and the size that was sent. */
  runBoundedTurn(req: TurnRequest): Promise<TurnResult>;
  /** Resolves when no turn is running or queued. */
  idle(): Promise<void>;
}

export interface AgentTurnsOptions {
  runner: AgentRunner;
  sessions: SessionStore;
  journal: Journal;
  logger: HostLogger;
  /** Used when a request has no model. */
  defaultModel?: string;
  /** The main session's events are drained by heartbeats; other sessions' by their next turn. */
  mainKey: string;
  now?: () => number;
}

/**
 * The most recent history that fits `maxChars` beside nothing else, starting with
 * a user message so the conversation stays well formed.
 */
export function recentHistoryWithin(history: readonly ChatMessage[], maxChars: number): readonly ChatMessage[] {
  let used = 0;
  let from = history.length;
  while (from > 0 && used + history[from - 1]!.content.length <= maxChars) {
    from--;
    used += history[from]!.content.length;
  }
  while (from < history.length && history[from]!.role !== "user") from++;
  return from === 0 ? history : history.slice(from);
}

/** Prefixes a turn's message with the session's pending system events, if any. */
export function withSystemEvents(events: string[], message: string): string {
  if (events.length === 0) return message;
  return `System events:\n${events.map((t) => `- ${t}`).join("\n")}\n\n${message}`;
}

export function createAgentTurns(opts: AgentTurnsOptions): AgentTurns {
  const now = opts.now ?? Date.now;
  const tails = new Map<string, Promise<unknown>>();

  async function runOne(req: TurnRequest): Promise<TurnResult> {
    const started = now();
    const model = req.model ?? opts.defaultModel;
    const timeout = AbortSignal.timeout(Math.max(1, req.timeoutMs));
    const signal = AbortSignal.any([req.signal, timeout]);
    let result: RunTurnResult;
    let message = req.message;
    let promptChars = 0;
    if (signal.aborted) {
      result = { status: "timeout", error: "the run was aborted before it started" };
    } else {
      const session = opts.sessions.get(req.sessionKey);
      const history = req.maxPromptChars === undefined ? session.history : recentHistoryWithin(session.history, req.maxPromptChars - req.message.length);
      const pending = req.sessionKey === opts.mainKey ? [] : [...session.pending];
      message = withSystemEvents(
        pending.map((e) => e.text),
        req.message,
      );
      if (pending.length > 0) {
        opts.sessions.consume(
          req.sessionKey,
          pending.map((e) => e.id),
        );
        opts.journal.append({ type: "system_events_consumed", sessionKey: req.sessionKey, count: pending.length });
      }
      promptChars = history.reduce((n, m) => n + m.content.length, message.length);
      const aborted = new Promise<RunTurnResult>((resolve) =>
        signal.addEventListener(
          "abort",
          () => resolve({ status: "timeout", error: timeout.aborted ? `timed out after ${req.timeoutMs} ms` : "the run was aborted" }),
          { once: true },
        ),
      );
      const ran = opts.runner
        .run({
          sessionKey: req.sessionKey,
          model,
          thinking: req.thinking,
          history,
          message,
          signal,
          ...(req.heartbeatEvents ? { heartbeatEvents: req.heartbeatEvents } : {}),
        })
        .then((r): RunTurnResult => r)
        .catch((e: unknown): RunTurnResult =>
          signal.aborted
            ? { status: "timeout", error: timeout.aborted ? `timed out after ${req.timeoutMs} ms` : "the run was aborted" }
            : { status: "error", error: (e as Error)?.message ?? String(e) },
        );
      result = await Promise.race([ran, aborted]);
    }
    if (result.status === "ok") {
      opts.sessions.appendHistory(req.sessionKey, [
        { role: "user", content: message },
        { role: "assistant", content: result.reply ?? "" },
      ]);
    }
    const durationMs = now() - started;
    opts.journal.append({
      type: "agent_turn",
      sessionKey: req.sessionKey,
      ...(model ? { model } : {}),
      ...(req.thinking ? { thinking: req.thinking } : {}),
      status: result.status,
      ...(result.reply !== undefined ? { reply: result.reply } : {}),
      ...(result.error !== undefined ? { error: result.error } : {}),
      durationMs,
    });
    opts.logger.info("agent turn finished", { sessionKey: req.sessionKey, status: result.status, durationMs, runner: opts.runner.kind });
    return { ...result, promptChars };
  }

  function runBoundedTurn(req: TurnRequest): Promise<TurnResult> {
    const prev = tails.get(req.sessionKey) ?? Promise.resolve();
    const next = prev.then(() => runOne(req));
    const tail = next.catch(() => undefined);
    tails.set(req.sessionKey, tail);
    void tail.then(() => {
      if (tails.get(req.sessionKey) === tail) tails.delete(req.sessionKey);
    });
    return next;
  }

  return {
    runBoundedTurn,
    runTurn: (req) => runBoundedTurn(req).then(({ promptChars: _sent, ...result }) => result),
    async idle() {
      while (tails.size > 0) await Promise.all([...tails.values()]);
    },
  };
}
