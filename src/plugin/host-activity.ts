/**
 * What the plugin follows of its host's events (SPEC §2.1): finished heartbeats
 * are counted, session events logged at debug, and `gateway: stopping` makes the
 * plugin refuse new hook requests at once (503 shutting_down) instead of only when
 * its services stop.
 */
import type { EventEmitter } from "eventemitter3";
import type { ModuleLogger } from "../core/logger";
import type { HostEvents } from "../host-contract/host-api";

export interface HostActivity {
  /** Heartbeats the host finished since activation, and the reason of the last one. */
  heartbeats: { finished: number; lastReason?: string };
  /** True once the host announced `gateway: stopping`: new hook requests get 503 shutting_down. */
  hostStopping: boolean;
}

export interface HostWatch {
  snapshot(): HostActivity;
  /** Removes the listeners from the host's events. */
  unsubscribe(): void;
}

export function watchHost(events: EventEmitter<HostEvents>, log: ModuleLogger): HostWatch {
  const seen: HostActivity = { heartbeats: { finished: 0 }, hostStopping: false };
  const onHeartbeat: HostEvents["heartbeat"] = (e) => {
    if (e.phase !== "finished") return;
    seen.heartbeats.finished++;
    seen.heartbeats.lastReason = e.reason;
  };
  const onSession: HostEvents["session"] = (e) => void log.debug("host session event", { phase: e.phase, sessionKey: e.sessionKey });
  const onGateway: HostEvents["gateway"] = (e) => {
    if (e.phase !== "stopping" || seen.hostStopping) return;
    seen.hostStopping = true;
    log.info("host is stopping: new hook requests are refused with 503 shutting_down");
  };
  events.on("heartbeat", onHeartbeat);
  events.on("session", onSession);
  events.on("gateway", onGateway);
  return {
    snapshot: () => ({ heartbeats: { ...seen.heartbeats }, hostStopping: seen.hostStopping }),
    unsubscribe() {
      events.off("heartbeat", onHeartbeat);
      events.off("session", onSession);
      events.off("gateway", onGateway);
    },
  };
}
