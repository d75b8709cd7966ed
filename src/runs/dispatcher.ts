/**
 * The dispatcher: the effect of an accepted action (SPEC §4.3, §4.4, §5.2).
 * Wake → a wrapped system event on the main session (+ heartbeat for "now");
 * agent → a wrapped message persisted as a queued run. It never waits for a run.
 */
import { isHostOverloadedError, type HostRuntime } from "../host-contract/host-api";
import type { ResolvedHooksConfig } from "../config/types";
import type { ActionSource, AgentAction, DispatchResult, WakeAction } from "../core/actions";
import type { Dispatcher } from "../core/ports";
import { err, hookError, ok, type Result } from "../core/errors";
import { wrapExternalContent } from "../safety/wrap";
import type { ModuleLogger } from "../core/logger";
import type { RunQueue } from "../core/runs";

export interface DispatcherOptions {
  config: Pick<ResolvedHooksConfig, "allowedSessionKeyPrefixes">;
  runtime: HostRuntime;
  queue: Pick<RunQueue, "enqueue" | "get">;
  /** True once shutdown began: new actions are refused with `shutting_down`. */
  isShuttingDown: () => boolean;
  /** Marker id generator of the safety wrapper; default random hex. */
  idGen?: () => string;
  /** Where a failed heartbeat request is reported (the wake itself is already queued). */
  logger?: ModuleLogger;
}

/** The namespace every confined session key may use (SPEC §5.1). */
export const HOOK_SESSION_PREFIX = "hook:";

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

/** Heartbeat reason of a wake: `hook:wake` for the direct route, `hook:<hook name>` for a mapped one. */
export function wakeHeartbeatReason(source: ActionSource): string {
  return `hook:${source.hook}`;
}

/** Creates the dispatcher used by the request pipeline. */
export function createDispatcher(options: DispatcherOptions): Dispatcher {
  const { config, runtime, queue, isShuttingDown, idGen, logger } = options;

  async function wake(action: WakeAction, source: ActionSource): Promise<Result<DispatchResult>> {
    if (isShuttingDown()) return err(hookError("shutting_down"));
    const text = contentForSession(action.text, source, idGen);
    try {
      await runtime.sessions.enqueueSystemEvent(runtime.sessions.mainKey, text, {
        source: `hook:${source.hook}`,
        kind: "wake",
        requestId: source.requestId,
        wrapped: text !== action.text,
        ...(source.mappingId !== undefined ? { mappingId: source.mappingId } : {}),
      });
    } catch (e) {
      if (isHostOverloadedError(e)) {
        const headers = { "Retry-After": String(e.retryAfterSeconds) };
        return err(hookError("overloaded", "The main session's event queue is full; retry later.", { headers, cause: e }));
      }
      return err(hookError("internal_error", "The wake event could not be queued on the main session; retry later.", { cause: e }));
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

  function agent(action: AgentAction, source: ActionSource, opts?: { idempotencyKey?: string }): Result<DispatchResult> {
    if (isShuttingDown()) return err(hookError("shutting_down"));
    const prefixes = [HOOK_SESSION_PREFIX, ...config.allowedSessionKeyPrefixes];
    if (!prefixes.some((p) => p !== "" && action.sessionKey.startsWith(p))) {
      const message = `sessionKey must start with "hook:" or one of hooks.allowedSessionKeyPrefixes.`;
      return err(hookError("invalid_payload", message, { details: [{ field: "sessionKey", message }] }));
    }
    // The stored message is the wrapped text, so a run resumed after a restart runs exactly what was accepted.
    const stored: AgentAction = { ...action, message: contentForSession(action.message, source, idGen) };
    const queuedRun = queue.enqueue(stored, source, opts);
    if (!queuedRun.ok) return queuedRun;
    return ok({ kind: "agent", runId: queuedRun.value.id, sessionKey: queuedRun.value.action.sessionKey });
  }

  return { wake, agent };
}
