/**
 * `runtime.agents.runTurn` through OpenClaw: `api.runtime.subagent.run` on the run's
 * session, `waitForRun` until it ends, then the last assistant message of that
 * session is the reply.
 *
 * Called by the plugin's run queue, which runs turns after the 202, from the
 * service OpenClaw started — never inside an HTTP request's scope (OpenClaw refuses
 * a subagent run started inside a plugin route's request: the request's scopes lack
 * `operator.write`).
 *
 * Session keys: the plugin's keys (`hook:…`) become OpenClaw's agent-scoped form
 * `agent:<agentId>:hook:…` of the run's agent (`req.agentId`, else the default agent); the
 * same key again continues that conversation (of that agent).
 * Models: a `provider/model` ref becomes OpenClaw's `provider` + `model` override
 * (OpenClaw admits overrides only with `plugins.entries.inbound-webhooks.subagent.allowModelOverride`).
 * Timeouts: the plugin bounds the wait (`timeoutMs`, and the abort signal); OpenClaw's
 * plugin runtime offers no way to cancel a run, so a run the plugin gave up on ends
 * under OpenClaw's own `agents.defaults.timeoutSeconds`.
 * Reloads: OpenClaw restarts the plugin's service on a config change while its runs go
 * on in the same process. The OpenClaw run of each plugin run is kept process-wide
 * (not per activation: the next activation is another instance), so the next start
 * joins it (`stillRunning`, then `runTurn` with the same `runId` waits for that run)
 * instead of recording the run interrupted or starting it again.
 * Restarts and stops: OpenClaw closes its admission while it drains for a restart or a
 * stop (and while it starts or is suspended) and refuses every call with a request
 * error marked `retryable` (2026.9.6: `agent.wait unavailable during gateway restart`,
 * code `UNAVAILABLE`, `retryAfterMs`). The refusal says nothing about the run, so the
 * adapter asks again after `retryAfterMs` instead of reporting it as the run's end: a
 * suspension that ends lets the wait go on; a stop or a restart stops the plugin's
 * service, whose signal ends the wait, and the run is then recovered at the next start
 * like any run cut off by a restart (recorded `interrupted`, or run again with
 * `runs.retryInterrupted`). The flag is read, never the message.
 */
import type { RunTurnRequest, RunTurnResult } from "../../host-contract/host-api";
import type { OpenClawRuntime } from "./openclaw-api";
import type { ServiceScope } from "./service-scope";
import { isHostUnavailable } from "./refusals";
import type { DetachedWork } from "./detached-work";
import { setTimeout as sleep } from "node:timers/promises";

/** Longest single `waitForRun` call; the wait is repeated until the run ends or the turn's time is up. */
const WAIT_SLICE_MS = 30_000;
/** Messages read back to find the reply (the reply is the newest assistant message). */
const MESSAGES_READ = 20;
/** How long to wait before asking again after a retryable refusal that names no delay, and the longest delay taken. */
const REFUSED_RETRY_DEFAULT_MS = 1000;
const REFUSED_RETRY_MAX_MS = 5000;

/** An OpenClaw run started for a plugin run, and until when the plugin waits for it. */
interface StartedTurn {
  runId: string;
  sessionKey: string;
  deadline: number;
}

const TURNS = Symbol.for("inbound-webhooks.openclaw.turns");

/** Plugin run id → its OpenClaw run, for every activation of the plugin in this process. */
function turnsOfProcess(): Map<string, StartedTurn> {
  const holder = globalThis as { [TURNS]?: Map<string, StartedTurn> };
  return (holder[TURNS] ??= new Map());
}

/**
 * `hook:github:o/r#1` → `agent:main:hook:github:o/r#1`. A key already in OpenClaw's form (a prefix of
 * `allowedSessionKeyPrefixes` may admit `agent:…`) is re-scoped to the run's agent, as OpenClaw's own hooks do:
 * the key never picks the agent past `allowedAgentIds`.
 */
export function openClawSessionKey(agentId: string, sessionKey: string): string {
  const scoped = /^agent:[^:]*:/.exec(sessionKey);
  return `agent:${agentId}:${scoped ? sessionKey.slice(scoped[0].length) : sessionKey}`;
}

/** `openai/gpt-x` → { provider: "openai", model: "gpt-x" }; a bare id is a model of the default provider. */
export function splitModelRef(ref: string): { provider?: string; model: string } {
  const slash = ref.indexOf("/");
  return slash > 0 ? { provider: ref.slice(0, slash), model: ref.slice(slash + 1) } : { model: ref };
}

/** The text of one transcript message (string content, or the text parts of a content list). */
function messageText(message: unknown): string | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const m = message as { role?: unknown; content?: unknown; text?: unknown };
  if (m.role !== "assistant") return undefined;
  if (typeof m.content === "string") return m.content;
  if (typeof m.text === "string") return m.text;
  if (!Array.isArray(m.content)) return undefined;
  const parts = m.content.flatMap((p: unknown) =>
    p && typeof p === "object" && (p as { type?: unknown }).type === "text" && typeof (p as { text?: unknown }).text === "string"
      ? [(p as { text: string }).text]
      : [],
  );
  return parts.length > 0 ? parts.join("") : undefined;
}

/** The newest assistant text of a transcript (OpenClaw lists messages oldest first). */
export function lastAssistantText(messages: readonly unknown[]): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const text = messageText(messages[i]);
    if (text !== undefined) return text;
  }
  return undefined;
}

/** The text of what OpenClaw threw. */
function thrownText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Resolves when `signal` aborts (never rejects). */
function aborted(signal: AbortSignal): Promise<"aborted"> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve("aborted");
    else signal.addEventListener("abort", () => resolve("aborted"), { once: true });
  });
}

/** The delay OpenClaw asks for when it refused a call for now (its request errors carry `retryable`), else undefined. */
function retryDelayOf(e: unknown): number | undefined {
  if (e === null || typeof e !== "object" || (e as { retryable?: unknown }).retryable !== true) return undefined;
  const ms = (e as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof ms === "number" && ms > 0 ? Math.min(ms, REFUSED_RETRY_MAX_MS) : REFUSED_RETRY_DEFAULT_MS;
}

/** The call's answer; "refused" once the delay OpenClaw asked for has passed (or `signal` aborted) when it refused the call for now. */
async function unlessRefused<T>(call: () => Promise<T>, signal: AbortSignal): Promise<T | "refused"> {
  try {
    return await call();
  } catch (e) {
    const delay = retryDelayOf(e);
    if (delay === undefined) throw e;
    await sleep(delay, undefined, { signal }).catch(() => undefined);
    return "refused";
  }
}

export interface SubagentTurns {
  runTurn(req: RunTurnRequest): Promise<RunTurnResult>;
  /** The OpenClaw run of plugin run `runId` was started in this process and may still go on (host contract `agents.stillRunning`). */
  stillRunning(runId: string): boolean;
}

/**
 * `primary`: the agent's configured model; naming it passes no override (OpenClaw refuses overrides unless allowed).
 * `detached`: OpenClaw's `runDetachedWebhookWork` (detached-work.ts), the root each run is started on; undefined: untracked.
 */
export function createSubagentTurns(
  runtime: OpenClawRuntime,
  agentId: string,
  scope: ServiceScope,
  primary?: string,
  detached: () => Promise<DetachedWork | undefined> = async () => undefined,
): SubagentTurns {
  // Every OpenClaw call of a run is made in the service's context, never the request's that queued the run (service-scope.ts);
  // the start on a tracked root of its own, so OpenClaw's stop can finish the run (detached-work.ts).
  const subagent = {
    run: (p: Parameters<OpenClawRuntime["subagent"]["run"]>[0]) =>
      scope.run(async () => {
        const onRoot = await detached();
        return onRoot ? onRoot(() => runtime.subagent.run(p)) : runtime.subagent.run(p);
      }),
    waitForRun: (p: Parameters<OpenClawRuntime["subagent"]["waitForRun"]>[0]) => scope.run(() => runtime.subagent.waitForRun(p)),
    getSessionMessages: (p: Parameters<OpenClawRuntime["subagent"]["getSessionMessages"]>[0]) => scope.run(() => runtime.subagent.getSessionMessages(p)),
  };
  const turns = turnsOfProcess();

  /** The OpenClaw run of `req`: the one an earlier activation started for the same plugin run, else a new one. */
  async function startOrJoin(req: RunTurnRequest): Promise<StartedTurn | RunTurnResult> {
    const known = req.runId !== undefined ? turns.get(req.runId) : undefined;
    if (known) return known;
    const params: { sessionKey: string; message: string; deliver: boolean; provider?: string; model?: string } = {
      sessionKey: openClawSessionKey(req.agentId ?? agentId, req.sessionKey),
      message: req.message,
      deliver: false,
    };
    if (req.model !== undefined && req.model !== primary) Object.assign(params, splitModelRef(req.model));
    try {
      const until = Date.now() + req.timeoutMs;
      let started: Awaited<ReturnType<typeof subagent.run>> | "refused";
      // Refused for now (OpenClaw starting, draining or suspended): asked again until the run's time is up or the service stops.
      while ((started = await unlessRefused(() => subagent.run(params), req.signal)) === "refused") {
        if (req.signal.aborted || Date.now() >= until)
          return { status: "timeout", error: `OpenClaw did not admit the run within ${Math.round(req.timeoutMs / 1000)} s` };
      }
      const turn = { runId: started.runId, sessionKey: started.sessionKey ?? params.sessionKey, deadline: Date.now() + req.timeoutMs };
      for (const [id, t] of turns) if (t.deadline <= Date.now()) turns.delete(id);
      if (req.runId !== undefined) turns.set(req.runId, turn);
      return turn;
    } catch (e) {
      // Draining, closing or reloading (refusals.ts): the run never started; the run layer queues it again.
      if (isHostUnavailable(e)) return { status: "unavailable", started: false, error: `OpenClaw refused the run for now: ${thrownText(e)}` };
      return { status: "error", error: `OpenClaw refused the run: ${thrownText(e)}` };
    }
  }

  /**
   * Waits for the OpenClaw run until it ends (then it is forgotten), its deadline passes, or the signal aborts or
   * OpenClaw becomes unavailable (then it is kept, to be joined by the next activation of a reload).
   */
  async function waitFor(req: RunTurnRequest, started: StartedTurn): Promise<RunTurnResult> {
    try {
      return await waitOrThrow(req, started);
    } catch (e) {
      if (!isHostUnavailable(e)) throw e;
      return { status: "unavailable", started: true, error: `OpenClaw became unavailable during the run: ${thrownText(e)}` };
    }
  }

  async function waitOrThrow(req: RunTurnRequest, started: StartedTurn): Promise<RunTurnResult> {
    const stop = aborted(req.signal);
    const end = (result: RunTurnResult): RunTurnResult => {
      if (req.runId !== undefined && !req.signal.aborted) turns.delete(req.runId);
      return result;
    };
    for (;;) {
      const left = started.deadline - Date.now();
      if (left <= 0 || req.signal.aborted)
        return end({ status: "timeout", error: `OpenClaw's run ${started.runId} did not finish within ${Math.round(req.timeoutMs / 1000)} s` });
      const slice = Math.min(left, WAIT_SLICE_MS);
      const askedAt = Date.now();
      const waited = await Promise.race([unlessRefused(() => subagent.waitForRun({ runId: started.runId, timeoutMs: slice }), req.signal), stop]);
      if (waited === "aborted" || waited === "refused") continue;
      if (waited.status === "pending") continue;
      // "timeout" is either the wait's own bound (the run goes on) or the run's end: only an ended run has endedAt or answers early.
      const waitEnded = waited.endedAt === undefined && Date.now() - askedAt >= slice - 1000;
      if (waited.status === "timeout" && waitEnded) continue;
      if (waited.status === "timeout") return end({ status: "timeout", error: waited.error ?? `OpenClaw's run ${started.runId} timed out` });
      // A run OpenClaw ended because it drains or closes (refusals.ts) did not fail: kept, to be joined or recovered.
      if (waited.status === "error" && isHostUnavailable(waited.error))
        return { status: "unavailable", started: true, error: `OpenClaw ended the run while unavailable: ${waited.error}` };
      if (waited.status === "error") return end({ status: "error", error: waited.error ?? `OpenClaw's run ${started.runId} failed without a reason` });
      const read = await Promise.race([
        unlessRefused(() => subagent.getSessionMessages({ sessionKey: started.sessionKey, limit: MESSAGES_READ }), req.signal),
        stop,
      ]);
      if (read === "aborted" || read === "refused") continue;
      return end({ status: "ok", reply: lastAssistantText(read.messages) ?? "" });
    }
  }

  return {
    async runTurn(req) {
      const started = await startOrJoin(req);
      return "status" in started ? started : waitFor(req, started);
    },
    stillRunning: (runId) => (turns.get(runId)?.deadline ?? 0) > Date.now(),
  };
}
