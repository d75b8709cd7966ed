/**
 * `Prefer: wait=<seconds>` (RFC 7240) on `/agent` and mapped agent hooks (SPEC §12).
 *
 * - The preference is read from every `Prefer` header (comma-separated preferences,
 *   `;` parameters); the first `wait` counts. A value that is not a whole number of
 *   seconds is ignored, as RFC 7240 asks of a malformed preference.
 * - The applied value is `min(wait, hooks.runs.maxWaitSeconds)`; 0 means no wait.
 * - Waiting holds no run-queue slot: the run is stored and queued first (the answer
 *   for idempotent replays is that stored 202), then the request waits for its end.
 * - Per client at most `hooks.runs.maxWaitingPerClient` requests wait at once;
 *   beyond it a request is answered at once, like one without the preference.
 * - When the request waited: `Preference-Applied: wait=<applied>` on the answer,
 *   200 `{ ok, runId, sessionKey, status, reply, error?, mapping? }` when the run
 *   ended in time, else the usual 202. A client disconnect or shutdown stops waiting.
 */
import type { RunsConfig } from "../../config/types";
import type { HookResponse } from "../../core/ports";
import type { RunWait, RunWaiters } from "../../runs/run-waiters";

export const PREFERENCE_APPLIED_HEADER = "Preference-Applied";

/** The first `wait` preference in the `Prefer` header(s), in seconds; undefined when absent or malformed. */
export function preferredWaitSeconds(header: string | string[] | undefined): number | undefined {
  if (header === undefined) return undefined;
  for (const list of Array.isArray(header) ? header : [header]) {
    for (const pref of list.split(",")) {
      const token = pref.split(";")[0];
      const eq = token.indexOf("=");
      const name = (eq === -1 ? token : token.slice(0, eq)).trim().toLowerCase();
      if (name !== "wait") continue;
      const value =
        eq === -1
          ? ""
          : token
              .slice(eq + 1)
              .trim()
              .replace(/^"(.*)"$/, "$1");
      return /^\d{1,9}$/.test(value) ? Number(value) : undefined;
    }
  }
  return undefined;
}

export interface WaitGate {
  /**
   * Prepares waiting for a request that asked for it: reserves the client's slot.
   * Undefined when the request will not wait. `onClientGone` registers what to do
   * when the client disconnects (stop waiting, free the slot).
   */
  prepare(request: { prefer: string | undefined; client: string; routeKind: string; onClientGone?: (stop: () => void) => void }): PreparedWait | undefined;
  /** Releases every waiting request (shutdown): each is answered 202 at once. */
  releaseAll(): void;
}

export interface PreparedWait {
  /** Called with the run id right after a single run was accepted — before it can start — so the waiter sees its end. */
  awaitRun(runId: string): void;
  /** The answer: after waiting for the run when one was accepted, else `response` as it is. */
  finish<R extends HookResponse>(response: R): Promise<R | HookResponse>;
}

export function createWaitGate(config: Pick<RunsConfig, "maxWaitSeconds" | "maxWaitingPerClient">, waiters: RunWaiters): WaitGate {
  const perClient = new Map<string, number>();
  const release = (client: string): void => {
    const n = (perClient.get(client) ?? 1) - 1;
    if (n <= 0) perClient.delete(client);
    else perClient.set(client, n);
  };

  return {
    prepare({ prefer, client, routeKind, onClientGone }) {
      if (routeKind === "wake") return undefined;
      const wanted = preferredWaitSeconds(prefer);
      const applied = Math.min(wanted ?? 0, config.maxWaitSeconds);
      if (applied <= 0 || (perClient.get(client) ?? 0) >= config.maxWaitingPerClient) return undefined;
      perClient.set(client, (perClient.get(client) ?? 0) + 1);
      let released = false;
      const done = (): void => {
        if (released) return;
        released = true;
        release(client);
      };
      let wait: RunWait | undefined;
      onClientGone?.(() => {
        wait?.cancel();
        done();
      });
      return {
        awaitRun(runId) {
          // Released before the run was accepted: the client is gone, and nobody waits for its run.
          if (!released) wait = waiters.expect(runId);
        },
        async finish(response) {
          if (!wait) {
            done();
            return response;
          }
          const w = wait;
          const timer = setTimeout(() => w.cancel(), applied * 1000);
          const end = await w.promise;
          clearTimeout(timer);
          done();
          const headers = { ...(response.headers ?? {}), [PREFERENCE_APPLIED_HEADER]: `wait=${applied}` };
          if (!end) return { ...response, headers };
          const accepted = (response.body ?? {}) as { runId?: string; sessionKey?: string; mapping?: string; warnings?: unknown };
          const body: Record<string, unknown> = {
            ok: true,
            runId: accepted.runId,
            sessionKey: accepted.sessionKey,
            status: end.status,
            reply: end.reply ?? null,
          };
          if (end.error !== undefined) body.error = end.error;
          if (accepted.mapping !== undefined) body.mapping = accepted.mapping;
          if (accepted.warnings !== undefined) body.warnings = accepted.warnings;
          return { status: 200, body, headers };
        },
      };
    },
    releaseAll: () => waiters.releaseAll(),
  };
}
