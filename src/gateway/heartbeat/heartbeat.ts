/**
 * The heartbeat of the main session: runs every `everyMs` (0 = only on request)
 * and on `requestNow` (calls within `coalesceMs` are merged into one run). A
 * heartbeat drains the pending system events of the main session into
 * main-agent turns, in batches whose prompt fits `maxPromptChars` (see
 * heartbeat-drain.ts: a failed batch is split and retried with backoff); the
 * events of a batch are consumed when its turn succeeds (kept otherwise). A
 * reply that is only `HEARTBEAT_OK` is not delivered; any other reply goes to
 * the main session's last route.
 *
 * A heartbeat with failures reports them on the main session (one system event
 * from `heartbeat`, at most one pending at a time) and in the log. When events
 * are left pending by failures, another heartbeat is scheduled with backoff
 * (1 min doubling up to 10 min), so the queue drains by itself once the runner
 * recovers.
 *
 * A requested heartbeat is persisted with the session, so a request that a
 * shutdown interrupted runs on the next start.
 */
import type { EventEmitter } from "eventemitter3";
import type { HostEvents, HostLogger } from "../../host-contract/host-api";
import type { Journal } from "../journal/journal";
import type { SessionStore } from "../sessions/session-store";
import type { AgentTurns } from "../runners/agent-turns";
import type { ChannelRegistry } from "../channels/channel-registry";
import { isHeartbeatAck } from "../../host-contract/heartbeat-ack";
import { abortableDelay } from "../runners/agent-runner";
import { drainPending, type DrainReport } from "./heartbeat-drain";
import { heartbeatReportText, HEARTBEAT_REPORT_SOURCE } from "./heartbeat-report";

export interface Heartbeat {
  start(): void;
  /** Cancels timers, aborts a running heartbeat turn and waits for it. */
  stop(): Promise<void>;
  requestNow(reason: string): void;
  /** Runs one heartbeat now (also used by tests); resolves when it is done. */
  runNow(reason: string): Promise<void>;
}

export interface HeartbeatOptions {
  everyMs: number;
  coalesceMs?: number;
  mainKey: string;
  sessions: SessionStore;
  turns: AgentTurns;
  channels: ChannelRegistry;
  journal: Journal;
  events: EventEmitter<HostEvents>;
  logger: HostLogger;
  /** Bound of a heartbeat turn (`agents.defaults.timeoutSeconds`). */
  turnTimeoutMs: number;
  /** Bound of one heartbeat prompt in characters (`agents.defaults.heartbeat.maxPromptChars`); default 100000. */
  maxPromptChars?: number;
  /** Backoff before retry n of a failed batch; default 1 s doubling up to 30 s. */
  batchBackoffMs?: (attempt: number) => number;
  setTimer?: (fn: () => void, ms: number) => NodeJS.Timeout;
  clearTimer?: (t: NodeJS.Timeout) => void;
}

export const DEFAULT_MAX_PROMPT_CHARS = 100_000;
/** First delay of a heartbeat scheduled again after failures left events pending; doubles up to RETRY_MAX_MS. */
export const RETRY_FIRST_MS = 60_000;
export const RETRY_MAX_MS = 10 * 60_000;

export function createHeartbeat(opts: HeartbeatOptions): Heartbeat {
  const setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t));
  const coalesceMs = opts.coalesceMs ?? 250;
  let started = false;
  let stopped = false;
  let requestTimer: NodeJS.Timeout | undefined;
  let periodicTimer: NodeJS.Timeout | undefined;
  let retryTimer: NodeJS.Timeout | undefined;
  let retryDelayMs = RETRY_FIRST_MS;
  let running: Promise<void> | undefined;
  let again: string | undefined;
  const abort = new AbortController();
  const strikes = new Map<string, number>();
  // Backoff waits go through the injectable timers, so tests drive them without sleeping.
  const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
    opts.setTimer
      ? new Promise((resolve, reject) => {
          if (signal.aborted) return reject(signal.reason);
          const t = setTimer(() => {
            signal.removeEventListener("abort", onAbort);
            resolve();
          }, ms);
          const onAbort = () => {
            clearTimer(t);
            reject(signal.reason);
          };
          signal.addEventListener("abort", onAbort, { once: true });
        })
      : abortableDelay(ms, signal);

  const schedulePeriodic = () => {
    if (periodicTimer) clearTimer(periodicTimer);
    periodicTimer = undefined;
    if (stopped || opts.everyMs <= 0) return;
    periodicTimer = setTimer(() => {
      periodicTimer = undefined;
      void trigger("interval");
    }, opts.everyMs);
  };

  const scheduleRequest = (reason: string) => {
    if (requestTimer || stopped || !started) return;
    requestTimer = setTimer(() => {
      requestTimer = undefined;
      void trigger(reason);
    }, coalesceMs);
  };

  const scheduleRetry = () => {
    if (retryTimer || stopped || !started) return;
    const delay = retryDelayMs;
    retryDelayMs = Math.min(RETRY_MAX_MS, retryDelayMs * 2);
    opts.logger.info("heartbeat scheduled again: failures left events pending", { inMs: delay });
    retryTimer = setTimer(() => {
      retryTimer = undefined;
      void trigger("retry");
    }, delay);
  };

  async function deliverReply(reason: string, reply: string | undefined): Promise<void> {
    if (isHeartbeatAck(reply)) {
      opts.logger.info("heartbeat acknowledged; nothing delivered", { reason });
      return;
    }
    const route = opts.channels.resolveLast(opts.mainKey);
    if (!route) {
      opts.logger.warn("heartbeat reply not delivered: the main session has no last route (set session.main.lastRoute)", { reason });
      return;
    }
    try {
      await opts.channels.deliver({ channel: route.channel, to: route.to, text: reply ?? "" });
    } catch (e) {
      opts.logger.error("heartbeat reply delivery failed", { channel: route.channel, error: (e as Error).message });
    }
  }

  /** Reports failures on the main session (one pending report at most) and in the log. */
  function reportFailures(reason: string, report: DrainReport): void {
    const pending = opts.sessions.get(opts.mainKey).pending;
    opts.logger.warn("heartbeat had failures", {
      reason,
      failedTurns: report.failures.length,
      turns: report.turns,
      consumed: report.consumed,
      skipped: report.skipped.length - report.setAside.length,
      setAside: report.setAside.length,
      pending: pending.length,
    });
    if (pending.some((e) => e.meta?.source === HEARTBEAT_REPORT_SOURCE)) return;
    const text = heartbeatReportText(report, pending.length);
    opts.sessions.enqueue(opts.mainKey, text, { source: HEARTBEAT_REPORT_SOURCE, kind: "heartbeat-report" });
    opts.journal.append({ type: "system_event", sessionKey: opts.mainKey, text, source: HEARTBEAT_REPORT_SOURCE });
  }

  async function beat(reason: string): Promise<void> {
    opts.events.emit("heartbeat", { phase: "started", reason });
    try {
      const pending = opts.sessions.get(opts.mainKey).pending.length;
      opts.sessions.setHeartbeatRequested(opts.mainKey, undefined);
      opts.journal.append({ type: "heartbeat", reason, pending });
      if (pending === 0) return;
      const report = await drainPending({
        reason,
        mainKey: opts.mainKey,
        sessions: opts.sessions,
        turns: opts.turns,
        journal: opts.journal,
        logger: opts.logger,
        maxPromptChars: opts.maxPromptChars ?? DEFAULT_MAX_PROMPT_CHARS,
        turnTimeoutMs: opts.turnTimeoutMs,
        signal: abort.signal,
        sleep,
        onReply: (reply) => deliverReply(reason, reply),
        strikes,
        backoffMs: opts.batchBackoffMs,
      });
      if (abort.signal.aborted) return;
      if (report.failures.length === 0) {
        retryDelayMs = RETRY_FIRST_MS;
        if (retryTimer) clearTimer(retryTimer);
        retryTimer = undefined;
        return;
      }
      reportFailures(reason, report);
      if (report.gaveUp || report.skipped.length > report.setAside.length) {
        // A restart retries too.
        opts.sessions.setHeartbeatRequested(opts.mainKey, "retry");
        scheduleRetry();
      }
    } catch (e) {
      opts.logger.error("heartbeat failed", { reason, error: (e as Error).message });
    } finally {
      opts.events.emit("heartbeat", { phase: "finished", reason });
    }
  }

  async function trigger(reason: string): Promise<void> {
    if (stopped) return;
    if (running) {
      again ??= reason;
      return running;
    }
    running = beat(reason);
    await running;
    running = undefined;
    schedulePeriodic();
    if (again !== undefined) {
      const next = again;
      again = undefined;
      scheduleRequest(next);
    }
  }

  return {
    start() {
      if (started) return;
      started = true;
      const pendingRequest = opts.sessions.get(opts.mainKey).heartbeatRequested;
      if (pendingRequest) scheduleRequest(pendingRequest);
      schedulePeriodic();
    },
    async stop() {
      stopped = true;
      if (requestTimer) clearTimer(requestTimer);
      if (periodicTimer) clearTimer(periodicTimer);
      if (retryTimer) clearTimer(retryTimer);
      requestTimer = periodicTimer = retryTimer = undefined;
      abort.abort(new Error("gateway stopping"));
      await running;
    },
    requestNow(reason) {
      if (!opts.sessions.get(opts.mainKey).heartbeatRequested) opts.sessions.setHeartbeatRequested(opts.mainKey, reason);
      scheduleRequest(reason);
    },
    runNow: (reason) => trigger(reason),
  };
}
