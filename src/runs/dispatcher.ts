/**
 * The dispatcher: the effect of an accepted action (SPEC §4.3, §4.4, §5.2).
 * Wake → a wrapped system event on the main session (+ heartbeat for "now");
 * agent → a wrapped message persisted as a queued run. It never waits for a run.
 */
import type { SessionOutbox } from "./session-outbox";
import type { HostRuntime } from "../host-contract/host-api";
import { isHostOverloadedError } from "../host-contract/host-overloaded";
import type { ResolvedHooksConfig } from "../config/types";
import type { ActionSource, AgentAction, DispatchResult, WakeAction } from "../core/actions";
import type { Dispatcher } from "../core/ports";
import { err, hookErrors, ok, type Result } from "../core/errors";
import { errorCode, storageUnavailable } from "../core/storage-fault";
import { afterIoPoll } from "../core/after-io-poll";
import { wrapExternalContent } from "../safety/wrap";
import type { ModuleLogger } from "../core/logger";
import type { RunQueue } from "../core/runs";
import type { ReceiverStore } from "../core/store-port";
import { HOOK_SESSION_PREFIX } from "../actions/session-key";

export interface DispatcherOptions {
  config: Pick<ResolvedHooksConfig, "allowedSessionKeyPrefixes">;
  runtime: HostRuntime;
  queue: Pick<RunQueue, "accept" | "enqueueAll">;
  /** True once shutdown began: new actions are refused with `shutting_down`. */
  isShuttingDown: () => boolean;
  /** Marker id generator of the safety wrapper; default random hex. */
  idGen?: () => string;
  /** Where a wake the host could not store (with its cause code) and a failed heartbeat request are reported. */
  logger?: ModuleLogger;
  /**
   * A receiver's (SPEC §16): wakes are stored for the consumer's main session instead of handed to
   * this process's host; the consumer hands them over and requests the heartbeat of mode "now".
   */
  wakes?: Pick<ReceiverStore, "storeWake">;
  /** A host that keeps its events in memory (`sessions.eventsInMemory`): wakes are kept in the plugin's outbox until a turn took them (session-outbox.ts). */
  outbox?: Pick<SessionOutbox, "put">;
}

/**
 * Hook content reaches a session wrapped, except for a mapped hook whose mapping
 * opted out with `allowUnsafeExternalContent: true`; direct hooks are always wrapped.
 */
export function contentForSession(content: string, source: ActionSource, idGen?: () => string): string {
  const unsafeAllowed = source.mappingId !== undefined && source.allowUnsafeExternalContent;
  if (unsafeAllowed) return content;
  const meta = source.mappingId !== undefined ? { hook: source.hook, mappingId: source.mappingId } : { hook: source.hook };
  return wrapExternalContent(content, meta, idGen ? { idGen } : {});
}

/**
 * From this many characters of content, wrapping it takes one turn of the event loop and
 * storing the event or run the next (the parse had the turn before, src/intake/accept.ts):
 * the wrapper needs 10–17 ms for 132,000 characters of marker look-alikes (SPEC §14, 50 ms).
 */
export const SPLIT_AFTER_WRAP_CHARS = 32 * 1024;

/**
 * Heartbeat reason of a wake: `hook:wake` for the direct route, `hook:<mapping id>` for a mapped one.
 * Never the mapped hook's name: a mapping that does not match on `path` takes any name the request
 * chooses, and a host may show the reason to the agent outside the untrusted-content wrapper (the
 * embedded gateway's heartbeat prompt starts `Heartbeat (<reason>).`). The mapping id is the operator's.
 */
/** Heartbeat reason of the wakes a start hands to the host again (session-outbox.ts). */
export const WAKE_HEARTBEAT_REASON = "hook:wake";

export function wakeHeartbeatReason(source: ActionSource): string {
  return `hook:${source.mappingId ?? source.hook}`;
}

/** Creates the dispatcher used by the request pipeline. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { config, runtime, queue, isShuttingDown, idGen, logger } = options;

  /** The content as it is stored; a long one a turn of the event loop after its wrap, refused if a shutdown began meanwhile. */
  async function storable(content: string, source: ActionSource): Promise<Result<string>> {
    const text = contentForSession(content, source, idGen);
    if (content.length < SPLIT_AFTER_WRAP_CHARS) return ok(text);
    await afterIoPoll();
    // The store may be closing.
    return isShuttingDown() ? err(hookErrors.shuttingDown()) : ok(text);
  }

  async function wake(action: WakeAction, source: ActionSource): Promise<Result<DispatchResult>> {
    if (isShuttingDown()) return err(hookErrors.shuttingDown());
    const wrapped = await storable(action.text, source);
    if (!wrapped.ok) return wrapped;
    const text = wrapped.value;
    const meta = {
      source: `hook:${source.hook}`,
      kind: "wake",
      requestId: source.requestId,
      wrapped: text !== action.text,
      ...(source.mappingId !== undefined ? { mappingId: source.mappingId } : {}),
    };
    try {
      if (options.wakes) {
        await options.wakes.storeWake({ text, mode: action.mode, reason: wakeHeartbeatReason(source), meta });
        return ok({ kind: "wake", mode: action.mode });
      }
      if (options.outbox) await options.outbox.put(runtime.sessions.mainKey, text, meta);
      else await runtime.sessions.enqueueSystemEvent(runtime.sessions.mainKey, text, meta);
    } catch (e) {
      if (isHostOverloadedError(e)) {
        return err(hookErrors.mainQueueFull({ headers: { "Retry-After": String(e.retryAfterSeconds) }, cause: e }));
      }
      // The host stores an event (and its journal line) or throws having stored nothing:
      // a retryable 503, and no heartbeat for an event that is not there.
      logger?.error("wake not accepted: the host could not store the system event", {
        requestId: source.requestId,
        code: "storage_unavailable",
        cause: errorCode(e) ?? "unknown",
        error: e instanceof Error ? e.message : String(e),
      });
      return err(storageUnavailable(e));
    }
    if (action.mode === "now") {
      try {
        runtime.heartbeat.requestNow({ reason: wakeHeartbeatReason(source) });
      } catch (e) {
        // The event is queued and the next heartbeat sees it: the wake is still accepted.
        logger?.error("heartbeat request failed", { requestId: source.requestId, code: "heartbeat_failed", error: e instanceof Error ? e.message : String(e) });
      }
    }
    return ok({ kind: "wake", mode: action.mode });
  }

  const prefixes = [HOOK_SESSION_PREFIX, ...config.allowedSessionKeyPrefixes];
  const prefixAllowed = (action: AgentAction): boolean => prefixes.some((p) => p !== "" && action.sessionKey.startsWith(p));
  // The stored message is the wrapped text, so a run resumed after a restart runs exactly what was accepted.
  const stored = (action: AgentAction, source: ActionSource): AgentAction => ({ ...action, message: contentForSession(action.message, source, idGen) });

  async function agent(action: AgentAction, source: ActionSource, opts?: { idempotencyKey?: string }): Promise<Result<DispatchResult>> {
    if (isShuttingDown()) return err(hookErrors.shuttingDown());
    if (!prefixAllowed(action)) return err(hookErrors.sessionKeyPrefixNotAllowed());
    // Resolves once the run is committed (with the other runs of this event-loop turn): the 202 means stored.
    const message = await storable(action.message, source);
    if (!message.ok) return message;
    const queuedRun = await queue.accept({ ...action, message: message.value }, source, opts);
    if (!queuedRun.ok) return queuedRun;
    return ok({ kind: "agent", runId: queuedRun.value.id, sessionKey: queuedRun.value.action.sessionKey });
  }

  const agentBatch: Dispatcher["agentBatch"] = async (runs) => {
    if (isShuttingDown()) return err(hookErrors.shuttingDown());
    if (!runs.every((r) => prefixAllowed(r.action))) return err(hookErrors.sessionKeyPrefixNotAllowed());
    const queued = await queue.enqueueAll(runs.map((r) => ({ ...r, action: stored(r.action, r.source) })));
    if (!queued.ok) return queued;
    return ok(queued.value.map((r) => ({ kind: "agent" as const, runId: r.id, sessionKey: r.action.sessionKey })));
  };

  return { wake, agent, agentBatch };
}
