/**
 * `api.runtime` as the embedded gateway provides it: the main session's event
 * queue, the heartbeat, agent turns, channels and models. In CLI mode (plugins
 * activated only to collect their commands) the effectful calls throw, because
 * the running gateway — not a CLI process — owns the state dir's sessions.
 */
import type { ChannelRegistry } from "./channels/channel-registry";
import type { Heartbeat } from "./heartbeat/heartbeat";
import type { Journal } from "./journal/journal";
import type { AgentTurns } from "./runners/agent-turns";
import type { SessionStore } from "./sessions/session-store";
import { BUILTIN_CHANNELS } from "./channels/channel-registry";
import { createModelRegistry } from "./models";
import type { AllowedModel, HostRuntime, LastRoute } from "../host-contract/host-api";
import { hostOverloadedError } from "../host-contract/host-overloaded";

export const MAIN_SESSION_KEY = "main";

/** Retry-After of a wake refused because the main session's queue is full. */
export const MAIN_FULL_RETRY_AFTER_SECONDS = 30;

export interface ServeRuntimeDeps {
  sessions: SessionStore;
  journal: Journal;
  heartbeat: Heartbeat;
  turns: AgentTurns;
  channels: ChannelRegistry;
  models: readonly AllowedModel[];
  /** Pending events the main session may hold (`session.main.maxPending`); beyond it enqueues are refused. */
  mainMaxPending?: number;
}

export function createServeRuntime(d: ServeRuntimeDeps): HostRuntime {
  return {
    sessions: {
      mainKey: MAIN_SESSION_KEY,
      enqueueSystemEvent(sessionKey, text, meta) {
        if (typeof sessionKey !== "string" || sessionKey === "") throw new Error("enqueueSystemEvent: sessionKey must be a non-empty string");
        if (typeof text !== "string") throw new Error("enqueueSystemEvent: text must be a string");
        // An event whose dedupe key the session already holds (or recently consumed) is a re-send: dropped, not journaled.
        if (typeof meta?.dedupeKey === "string" && d.sessions.hasDedupeKey(sessionKey, meta.dedupeKey)) return;
        if (sessionKey === MAIN_SESSION_KEY && d.mainMaxPending !== undefined && d.sessions.pendingCount(sessionKey) >= d.mainMaxPending) {
          throw hostOverloadedError(
            `the main session already holds ${d.mainMaxPending} pending system events (session.main.maxPending); retry once a heartbeat has drained them`,
            MAIN_FULL_RETRY_AFTER_SECONDS,
          );
        }
        // The event and its journal line are one change, written with the turn's group commit:
        // the promise resolves once both are stored; when the batch cannot be stored (disk
        // full …) neither remains and it rejects with the StorageWriteError (code ENOSPC …).
        return d.sessions.stageEnqueue(sessionKey, text, meta, () =>
          d.journal.staged({
            type: "system_event",
            sessionKey,
            text,
            ...(typeof meta?.source === "string" ? { source: meta.source } : {}),
            // A run's summary names its run, so the dashboard can show it among the run's effects.
            ...(typeof meta?.runId === "string" ? { runId: meta.runId } : {}),
          }),
        ).stored;
      },
    },
    heartbeat: { requestNow: ({ reason }) => d.heartbeat.requestNow(String(reason ?? "request")) },
    agents: { runTurn: (req) => d.turns.runTurn(req) },
    channels: {
      list: () => d.channels.list(),
      resolveLast: (key) => d.channels.resolveLast(key),
      deliver: (req) => d.channels.deliver(req),
    },
    models: createModelRegistry(d.models),
  };
}

const notInCli = (what: string) => () => {
  throw new Error(`${what} is only available while the gateway runs (gateway start)`);
};

/** Runtime for CLI mode: lookups work, effects throw a clear error. */
export function createCliRuntime(opts: { models: readonly AllowedModel[]; mainLastRoute?: LastRoute }): HostRuntime {
  return {
    sessions: { mainKey: MAIN_SESSION_KEY, enqueueSystemEvent: notInCli("runtime.sessions.enqueueSystemEvent") },
    heartbeat: { requestNow: notInCli("runtime.heartbeat.requestNow") },
    agents: { runTurn: () => Promise.reject(new Error("runtime.agents.runTurn is only available while the gateway runs (gateway start)")) },
    channels: {
      list: () => [...BUILTIN_CHANNELS],
      resolveLast: (key) => (key === MAIN_SESSION_KEY && opts.mainLastRoute ? { ...opts.mainLastRoute } : undefined),
      deliver: () => Promise.reject(new Error("runtime.channels.deliver is only available while the gateway runs (gateway start)")),
    },
    models: createModelRegistry(opts.models),
  };
}
