/**
 * The execution context of the plugin's OpenClaw service, for calls OpenClaw admits
 * only outside an HTTP request's scope.
 *
 * OpenClaw tracks the request a call belongs to through Node's async context: a
 * `subagent.run` whose async chain starts in a plugin route's request keeps that
 * request's scopes and is refused (`missing scope: operator.write`). The plugin's run
 * queue starts a run from the accept path (the request that queued it), so the
 * adapter runs OpenClaw calls in the context captured when OpenClaw started the
 * plugin's service (an AsyncResource made there), as OpenClaw's docs ask of
 * background work.
 */
import { AsyncResource } from "node:async_hooks";

export interface ServiceScope {
  /** Captures the current context: call it from the service's `start()`. */
  capture(): void;
  /** Runs `fn` in the captured context (in the caller's before `capture()`). */
  run<T>(fn: () => T): T;
}

export function createServiceScope(): ServiceScope {
  let resource: AsyncResource | undefined;
  return {
    capture() {
      resource = new AsyncResource("inbound-webhooks.service");
    },
    run: (fn) => (resource ? resource.runInAsyncScope(fn) : fn()),
  };
}
