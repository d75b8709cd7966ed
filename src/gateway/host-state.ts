/**
 * The host-side services every gateway mode shares, built from the resolved
 * config: journal, sessions, channels, runner, agent turns, heartbeat, runtime
 * and the host event emitter.
 */
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import type { HostEvents, HostRuntime } from "../host-contract/host-api";
import type { GatewayConfig } from "./config/gateway-config";
import type { GatewayLogger } from "./logger";
import { STATE_FILES } from "./paths";
import { createJournal, type Journal } from "./journal/journal";
import { createGroupCommit } from "./storage/group-commit";
import { createSessionStore, type SessionStore } from "./sessions/session-store";
import { createChannelRegistry, type ChannelRegistry } from "./channels/channel-registry";
import { createRunner } from "./runners/create-runner";
import { createAgentTurns, type AgentTurns } from "./runners/agent-turns";
import { createHeartbeat, type Heartbeat } from "./heartbeat/heartbeat";
import { createServeRuntime, MAIN_SESSION_KEY } from "./runtime";
import { openToOthersWarning } from "../host-contract/private-fs";

export interface HostState {
  events: EventEmitter<HostEvents>;
  journal: Journal;
  sessions: SessionStore;
  channels: ChannelRegistry;
  turns: AgentTurns;
  heartbeat: Heartbeat;
  runtime: HostRuntime;
}

export function createHostState(config: GatewayConfig, logger: GatewayLogger, env: NodeJS.ProcessEnv = process.env): HostState {
  // An existing state dir open to other users is reported, never changed silently (docs/security.md).
  const openStateDir = openToOthersWarning(config.stateDir, "gateway state dir");
  if (openStateDir) logger.child("gateway").warn(openStateDir);
  const events = new EventEmitter<HostEvents>();
  // One group commit for the journal and the session logs: a turn's hook changes cost one write per file.
  const commit = createGroupCommit();
  const sync = config.durability === "os";
  const journal = createJournal({
    file: path.join(config.stateDir, STATE_FILES.journal),
    logger: logger.child("journal"),
    commit,
    sync,
    maxBytes: config.journalMaxBytes,
  });
  const sessions = createSessionStore({
    dir: path.join(config.stateDir, STATE_FILES.sessions),
    commit,
    sync,
    keepOpen: (key) => key === MAIN_SESSION_KEY,
    onCreated: (sessionKey) => events.emit("session", { phase: "created", sessionKey }),
    logger: logger.child("sessions"),
  });
  const channels = createChannelRegistry({
    journal,
    sessions,
    mainKey: MAIN_SESSION_KEY,
    seedLastRoute: config.mainLastRoute,
    logger: logger.child("channels"),
  });
  const turns = createAgentTurns({
    runner: createRunner(config.runner, env),
    sessions,
    journal,
    logger: logger.child("agents"),
    defaultModel: config.defaultModel,
    mainKey: MAIN_SESSION_KEY,
  });
  const heartbeat = createHeartbeat({
    everyMs: config.heartbeatEveryMs,
    mainKey: MAIN_SESSION_KEY,
    sessions,
    turns,
    channels,
    journal,
    events,
    logger: logger.child("heartbeat"),
    turnTimeoutMs: config.defaultTimeoutSeconds * 1000,
    maxPromptChars: config.heartbeatMaxPromptChars,
  });
  const runtime = createServeRuntime({ sessions, journal, heartbeat, turns, channels, models: config.models, mainMaxPending: config.mainMaxPending });
  return { events, journal, sessions, channels, turns, heartbeat, runtime };
}
