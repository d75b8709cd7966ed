/**
 * The heartbeat of the main session: runs every `everyMs` (0 = only on request)
 * and on `requestNow` (calls within `coalesceMs` are merged into one run). A
 * heartbeat drains the pending system events of the main session into one
 * main-agent turn; the events are consumed when the turn succeeds (kept for the
 * next heartbeat otherwise). A reply that is only `HEARTBEAT_OK` is not
 * delivered; any other reply goes to the main session's last route.
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
import { heartbeatPrompt } from "./heartbeat-prompt";

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
  setTimer?: (fn: () => void, ms: number) => NodeJS.Timeout;
  clearTimer?: (t: NodeJS.Timeout) => void;
}

export function createHeartbeat(opts: HeartbeatOptions): Heartbeat {
  const setTimer = opts.setTimer ?? ((fn, ms) => setTimeout(fn, ms));
  const clearTimer = opts.clearTimer ?? ((t) => clearTimeout(t));
  const coalesceMs = opts.coalesceMs ?? 250;
  let started = false;
  let stopped = false;
  let requestTimer: NodeJS.Timeout | undefined;
  let periodicTimer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again: string | undefined;
  const abort = new AbortController();

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

  async function beat(reason: string): Promise<void> {
    opts.events.emit("heartbeat", { phase: "started", reason });
    try {
      const pending = [...opts.sessions.get(opts.mainKey).pending];
      opts.sessions.setHeartbeatRequested(opts.mainKey, undefined);
      opts.journal.append({ type: "heartbeat", reason, pending: pending.length });
      if (pending.length === 0) return;
      const result = await opts.turns.runTurn({
        sessionKey: opts.mainKey,
        message: heartbeatPrompt(reason, pending),
        timeoutMs: opts.turnTimeoutMs,
        signal: abort.signal,
      });
      if (result.status !== "ok") {
        opts.logger.warn("heartbeat turn did not succeed; events stay pending", { status: result.status, pending: pending.length });
        return;
      }
      const count = opts.sessions.consume(opts.mainKey, pending.map((e) => e.id));
      opts.journal.append({ type: "system_events_consumed", sessionKey: opts.mainKey, count });
      if (isHeartbeatAck(result.reply)) {
        opts.logger.info("heartbeat acknowledged; nothing delivered", { reason });
        return;
      }
      const route = opts.channels.resolveLast(opts.mainKey);
      if (!route) {
        opts.logger.warn("heartbeat reply not delivered: the main session has no last route (set session.main.lastRoute)", { reason });
        return;
      }
      try {
        await opts.channels.deliver({ channel: route.channel, to: route.to, text: result.reply ?? "" });
      } catch (e) {
        opts.logger.error("heartbeat reply delivery failed", { channel: route.channel, error: (e as Error).message });
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
      requestTimer = periodicTimer = undefined;
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
