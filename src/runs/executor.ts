/**
 * The run executor: one accepted run against the host — a bounded agent turn,
 * then delivery of the reply, the summary on the main session, and an immediate
 * heartbeat for wakeMode "now" (SPEC §5.3).
 */
import { RUN_SUMMARY_EVENT_KIND } from "../host-contract/heartbeat-ack";
import type { HostRuntime, RunTurnRequest } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import type { PluginEmitter } from "../core/events";
import type { RunExecutor, RunOutcome, RunRecord } from "../core/runs";
import { boundedTurn, type TurnEnd } from "./bounded-turn";
import { carryOutDelivery, planDelivery, type DeliveryResult } from "./delivery";
import { failureSummary, successSummary, summaryForMainSession } from "./summary";
import { systemClock, type Clock } from "../core/clock";
import { safeEmit } from "./safe-emit";
import type { KeyNamer } from "../host-contract/config-keys";
import type { SessionOutbox } from "./session-outbox";

export interface RunExecutorOptions {
  runtime: HostRuntime;
  logger: ModuleLogger;
  /** Names the plugin's config keys in the reasons it records, as the host keeps them (config-keys.ts); default as written. */
  keys?: KeyNamer;
  emitter: PluginEmitter;
  /** For durations in logs; default the system clock. */
  clock?: Clock;
  /** Marker id generator of the wrapper around summaries; default random hex. */
  idGen?: () => string;
  /**
   * A host that keeps its events in memory (`sessions.eventsInMemory`: OpenClaw): summaries are kept in the plugin's
   * outbox until a turn took them, like wakes (session-outbox.ts), so a stop before the next main-session turn loses none.
   */
  outbox?: Pick<SessionOutbox, "put">;
}

/** Heartbeat reason requested after an agent run (direct or mapped) with wakeMode "now". */
export const AGENT_HEARTBEAT_REASON = "hook:agent";

/** Default reason of an interrupted run when the record carries none. */
/** Said once per activation when a reply is not delivered for want of a last route (later runs: debug lines). */
export const NO_LAST_ROUTE_NOTICE =
  'reply not delivered: no last route (channel "last" has nowhere to go until the main session has delivered a reply somewhere; runs say so in their summary, and this is not repeated)';
export const INTERRUPTED_REASON = "the gateway stopped while this run was in progress; it was not re-run (set hooks.runs.retryInterrupted to re-run such runs)";

type Verdict = { status: "succeeded"; reply: string } | { status: "failed" | "timed_out"; error: string };

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

function judge(end: Exclude<TurnEnd, { kind: "cancelled" }>, timeoutSeconds: number): Verdict {
  const timedOut = `the run did not finish within ${timeoutSeconds} s (timeoutSeconds) and was aborted`;
  switch (end.kind) {
    case "timed_out":
      return { status: "timed_out", error: timedOut };
    case "threw":
      return { status: "failed", error: `the agent runner failed: ${errorText(end.error)}` };
    case "result": {
      const r = end.result;
      if (r.status === "ok") return { status: "succeeded", reply: r.reply ?? "" };
      if (r.status === "timeout") return { status: "timed_out", error: r.error || timedOut };
      return { status: "failed", error: r.error || "the agent runner reported an error without a reason" };
    }
  }
}

/** Creates the executor used by the run queue. `execute` never throws. */
/** The dedupe key of a run's summary on the main session: one summary per run, however often it is posted. */
export function summaryDedupeKey(runId: string): string {
  return `run-summary:${runId}`;
}

export function createRunExecutor(options: RunExecutorOptions): RunExecutor {
  const { runtime, logger, emitter } = options;
  const keys = options.keys ?? ((sentence: string) => sentence);
  const clock = options.clock ?? systemClock;
  const mainKey = (): string => runtime.sessions.mainKey;
  let noLastRouteSaid = false;

  /** Posts a summary on the main session, wrapped as untrusted content (see summaryForMainSession); false (logged) when the host could not store it. */
  async function postSummary(run: RunRecord, summary: string): Promise<boolean> {
    const text = summaryForMainSession(summary, run.source, options.idGen);
    try {
      const meta = {
        source: `hook:${run.source.hook}`,
        kind: RUN_SUMMARY_EVENT_KIND,
        runId: run.id,
        dedupeKey: summaryDedupeKey(run.id),
        wrapped: text !== summary,
        ...(run.source.mappingId !== undefined ? { mappingId: run.source.mappingId } : {}),
      };
      if (options.outbox) await options.outbox.put(mainKey(), text, meta);
      else await runtime.sessions.enqueueSystemEvent(mainKey(), text, meta);
    } catch (e) {
      logger.error("run summary could not be posted to the main session", { runId: run.id, code: "summary_failed", error: errorText(e) });
      return false;
    }
    return true;
  }

  function wakeIfAsked(run: RunRecord): void {
    if (run.action.wakeMode !== "now") return;
    try {
      runtime.heartbeat.requestNow({ reason: AGENT_HEARTBEAT_REASON });
    } catch (e) {
      logger.error("heartbeat request failed", { runId: run.id, code: "heartbeat_failed", error: errorText(e) });
    }
  }

  async function deliver(run: RunRecord, reply: string): Promise<DeliveryResult> {
    let plan: ReturnType<typeof planDelivery>;
    try {
      plan = planDelivery(
        run.action,
        run.source,
        reply,
        () => runtime.channels.resolveLast(mainKey()),
        () => runtime.channels.list(),
      );
    } catch (e) {
      // The host could not say where the main session last delivered: the reply is not delivered, and that is reported like any delivery failure.
      const error = `the last route could not be read: ${errorText(e)}`;
      logger.error("reply delivery failed", { runId: run.id, code: "delivery_failed", error });
      return { delivered: false, code: "delivery_failed", error };
    }
    const result = await carryOutDelivery(plan, reply.trim(), runtime.channels);
    if (result.code === "no_last_route") {
      // Not a failure, and the same for every run until the main session has delivered somewhere: said once, then at debug level.
      if (noLastRouteSaid) logger.debug("reply not delivered: no last route", { runId: run.id, code: result.code });
      else logger.warn(NO_LAST_ROUTE_NOTICE, { runId: run.id, code: result.code });
      noLastRouteSaid = true;
    } else if (result.code === "delivery_failed") {
      logger.error("reply delivery failed", { runId: run.id, code: result.code, channel: result.channel, error: result.error });
    } else if (plan.kind === "skip") {
      logger.debug("reply not delivered", { runId: run.id, reason: plan.reason });
    }
    return result;
  }

  async function execute(run: RunRecord, signal?: AbortSignal, onOutcome?: (o: RunOutcome) => void | "lost" | Promise<void | "lost">): Promise<RunOutcome> {
    const { action } = run;
    const base = { runId: run.id, sessionKey: action.sessionKey, name: action.name };
    const startedAt = clock();
    safeEmit(logger, () => emitter.emit("run:started", base));
    logger.info("run started", { runId: run.id, sessionKey: action.sessionKey, hook: run.source.hook, timeoutSeconds: action.timeoutSeconds });

    const end = await boundedTurn(
      (turnSignal) => {
        const req: RunTurnRequest = {
          sessionKey: action.sessionKey,
          message: action.message,
          timeoutMs: action.timeoutSeconds * 1000,
          signal: turnSignal,
          runId: run.id,
        };
        if (action.model !== undefined) req.model = action.model;
        if (action.thinking !== undefined) req.thinking = action.thinking;
        if (action.agentId !== undefined) req.agentId = action.agentId;
        return runtime.agents.runTurn(req);
      },
      { timeoutMs: action.timeoutSeconds * 1000, cancel: signal },
    );

    if (end.kind === "cancelled") {
      logger.warn("run cancelled before its turn finished; left for recovery", { runId: run.id, reason: end.reason });
      return { status: "failed", error: `cancelled: ${end.reason}`, summary: "", delivered: false, cancelled: true };
    }
    if (end.kind === "result" && end.result.status === "unavailable") {
      // The host is going away (a drain, a reload): not the run's failure. Nothing is recorded, posted or delivered here.
      const started = end.result.started === true;
      logger.warn(
        started
          ? "the host became unavailable during the run's turn; left for recovery at the next start"
          : "the host refused to start the run's turn for now; queued again",
        { runId: run.id, error: end.result.error ?? "host unavailable" },
      );
      const error = `the host was unavailable: ${end.result.error ?? "no reason given"}`;
      return { status: "failed", error, summary: "", delivered: false, cancelled: true, hostUnavailable: started ? "started" : "not_started" };
    }

    const verdict = judge(end, action.timeoutSeconds);
    let outcome: RunOutcome;
    if (verdict.status === "succeeded") {
      const d = await deliver(run, verdict.reply);
      const note = d.code === "no_last_route" ? "not delivered: no last route" : d.error;
      outcome = { status: "succeeded", reply: verdict.reply, summary: successSummary(action.name, verdict.reply, note), delivered: d.delivered };
      if (d.error) outcome.deliveryError = d.error;
    } else {
      outcome = { status: verdict.status, error: verdict.error, summary: failureSummary(action.name, verdict.status, verdict.error), delivered: false };
    }

    // Recorded (as "summary pending") before it is posted: a crash in between is
    // recovered by re-posting, and the dedupe key keeps a re-post from doubling it.
    try {
      if ((await onOutcome?.(outcome)) === "lost") {
        // Another consumer took the run over (its lease expired): that one reports it, not this one.
        logger.warn("run finished after its lease was taken over; its outcome is not recorded nor reported here", { runId: run.id, status: outcome.status });
        return { ...outcome, summaryPosted: false, lost: true };
      }
    } catch (e) {
      logger.error("recording the run outcome failed", { runId: run.id, code: "store_failed", error: errorText(e) });
    }
    if (!(await postSummary(run, outcome.summary))) outcome.summaryPosted = false;
    wakeIfAsked(run);
    safeEmit(logger, () => emitter.emit("run:finished", { ...base, status: outcome.status, delivered: outcome.delivered }));
    logger.info("run finished", {
      runId: run.id,
      status: outcome.status,
      delivered: outcome.delivered,
      replyChars: outcome.reply?.length ?? 0,
      durationMs: clock() - startedAt,
      ...(outcome.error ? { error: outcome.error } : {}),
    });
    return outcome;
  }

  async function reportInterrupted(run: RunRecord): Promise<string> {
    const summary = failureSummary(run.action.name, "interrupted", run.error ?? keys(INTERRUPTED_REASON));
    await postSummary(run, summary);
    wakeIfAsked(run);
    logger.warn("run interrupted by a restart; reported to the main session", { runId: run.id, sessionKey: run.action.sessionKey });
    return summary;
  }

  async function repostSummary(run: RunRecord & { summary: string }): Promise<void> {
    if (!(await postSummary(run, run.summary))) throw new Error("the summary could not be posted to the main session");
    wakeIfAsked(run);
    logger.info("recorded run summary posted again after a restart", { runId: run.id, status: run.status });
  }

  return { execute, reportInterrupted, repostSummary };
}
