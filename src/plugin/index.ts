/**
 * Plugin entry: the composition root. `activate(api)` is synchronous — it
 * resolves and validates config (throwing a ConfigError naming the key) and
 * registers the HTTP route, the runs service and the CLI. Opening the durable
 * store and starting workers happens in the service's `start()`.
 */
import semver from "semver";
import type { PluginApi } from "../host-contract/host-api";
import { resolveConfig } from "../config/resolve";
import { createPluginLogger } from "../logging/logger";
import { createPluginEmitter, type PluginEmitter } from "../core/events";
import { createHooksRouter } from "../http/router";
import { createRunExecutor } from "../runs/executor";
import { createRunQueue } from "../runs/run-queue";
import type { RunQueue } from "../core/runs";
import { createSqliteRunStore } from "../store/run-store";
import { createDispatcher } from "../runs/dispatcher";
import { createMappingEngine } from "../mappings/engine";
import { createIdempotencyGuard } from "../http/idempotency/idempotency-guard";
import { createRateLimiter } from "../http/rate-limit";
import { registerWebhooksCli } from "../cli/webhooks";
import { openPluginDatabase, type PluginDatabase } from "../store/database";
import { createMailService } from "../mail/watcher/service";

export type { PluginApi } from "../host-contract/host-api";
export { defineTransform } from "../mappings/define-transform";
export type { TransformContext, TransformResult, TransformFn } from "../mappings/define-transform";

/** What the plugin has seen of its host (from `api.events`). */
export interface HostActivity {
  /** Heartbeats the host finished since activation, and the reason of the last one. */
  heartbeats: { finished: number; lastReason?: string };
  /** True once the host announced `gateway: stopping`: new hook requests get 503 shutting_down. */
  hostStopping: boolean;
}

interface ActiveState {
  emitter: PluginEmitter;
  queue?: RunQueue;
  db?: PluginDatabase;
  host: HostActivity;
  closeLogger(): void;
  /** Removes the plugin's listeners from the host's events. */
  unsubscribe(): void;
}

let active: ActiveState | undefined;

/** Emitter of the active plugin instance (for in-process subscribers and tests). */
export function pluginEvents(): PluginEmitter | undefined {
  return active?.emitter;
}

/** A snapshot of the host activity the active plugin instance has seen. */
export function hostActivity(): HostActivity | undefined {
  return active && { heartbeats: { ...active.host.heartbeats }, hostStopping: active.host.hostStopping };
}

export function activate(api: PluginApi): void {
  const logs = createPluginLogger(api.logger, api.pluginId);
  const log = logs.forModule("plugin");
  const config = resolveConfig(api.config, { configDir: api.configDir });
  const emitter = createPluginEmitter();
  const host: HostActivity = { heartbeats: { finished: 0 }, hostStopping: false };
  // Host events: heartbeats are counted; `gateway: stopping` stops accepting hook
  // requests at once (503 shutting_down) instead of only when the runs service stops.
  const onHeartbeat = (e: { phase: "started" | "finished"; reason: string }): void => {
    if (e.phase !== "finished") return;
    host.heartbeats.finished++;
    host.heartbeats.lastReason = e.reason;
  };
  const onSession = (e: { phase: string; sessionKey: string }): void => void log.debug("host session event", { phase: e.phase, sessionKey: e.sessionKey });
  const onGateway = (e: { phase: "starting" | "stopping" }): void => {
    if (e.phase !== "stopping" || host.hostStopping) return;
    host.hostStopping = true;
    log.info("host is stopping: new hook requests are refused with 503 shutting_down");
  };
  api.events.on("heartbeat", onHeartbeat);
  api.events.on("session", onSession);
  api.events.on("gateway", onGateway);
  const state: ActiveState = {
    emitter,
    host,
    closeLogger: () => logs.close(),
    unsubscribe: () => {
      api.events.off("heartbeat", onHeartbeat);
      api.events.off("session", onSession);
      api.events.off("gateway", onGateway);
    },
  };
  active = state;

  // Mappings are compiled at activation so bad mappings/presets fail start.
  const mappings = createMappingEngine({
    config,
    presets: api.listPresets(),
    logger: logs.forModule("mappings"),
    configDir: api.configDir,
  });

  registerWebhooksCli(api, { config, mappings, logs });

  if (!config.enabled) {
    log.info("hooks disabled (hooks.enabled is not true); no HTTP listener registered");
    return;
  }

  let servicesStopping = false;
  const shuttingDown = (): boolean => servicesStopping || host.hostStopping;
  const executor = createRunExecutor({ runtime: api.runtime, logger: logs.forModule("runs"), emitter });

  // The store lives in the plugin's state dir and is opened by the service below,
  // before the host starts listening.
  let queue: RunQueue | undefined;
  let db: PluginDatabase | undefined;
  const requireQueue = (): RunQueue => {
    if (!queue) throw new Error("run queue used before the runs service started");
    return queue;
  };

  const dispatcher = createDispatcher({
    config,
    runtime: api.runtime,
    queue: { enqueue: (...a) => requireQueue().enqueue(...a), get: (id) => requireQueue().get(id) },
    isShuttingDown: shuttingDown,
    logger: logs.forModule("dispatch"),
  });

  const idempotency = createIdempotencyGuard({
    ttlSeconds: config.idempotency.ttlSeconds,
    database: () => {
      if (!db) throw new Error("idempotency used before the runs service started");
      return db;
    },
    logger: logs.forModule("idempotency"),
  });

  api.registerHttpRoute({
    prefix: config.path,
    handler: createHooksRouter({
      config,
      runtime: api.runtime,
      logger: logs.forModule("http"),
      emitter,
      dispatcher,
      mappings,
      idempotency,
      runs: { get: (id) => queue?.get(id) },
      rateLimiter: createRateLimiter(config, { logger: logs.forModule("rate-limit") }),
      isShuttingDown: shuttingDown,
    }),
  });

  // A host of contract 1.2+ calls ready() once its start can no longer fail: queued runs
  // resume (and runs found running are reported interrupted) only then, so a failed
  // start leaves every run as it was. An older host never calls ready(): start them in start().
  const hostCallsReady = semver.gte(semver.coerce(api.hostApiVersion) ?? "0.0.0", "1.2.0");
  api.registerService({
    id: "inbound-webhooks.runs",
    start: async () => {
      db = openPluginDatabase({ dir: api.stateDir, logger: logs.forModule("store") });
      state.db = db;
      queue = createRunQueue({
        store: createSqliteRunStore(db, { logger: logs.forModule("store") }),
        executor,
        config: config.runs,
        runtime: api.runtime,
        logger: logs.forModule("runs"),
        emitter,
      });
      state.queue = queue;
      queue.open();
      if (!hostCallsReady) await queue.start();
    },
    ready: async () => {
      await queue?.start();
    },
    stop: async () => {
      servicesStopping = true;
      await queue?.stop(config.runs.shutdownGraceSeconds * 1000);
      db?.close();
    },
  });

  if (config.mail?.autoStart) {
    api.registerService(createMailService({ config, stateDir: api.stateDir, configDir: api.configDir, logger: logs.forModule("mail") }));
  }

  log.info("hooks enabled", { path: config.path, mappings: mappings.describe().length, presets: config.presets });
}

export async function deactivate(): Promise<void> {
  const state = active;
  active = undefined;
  state?.unsubscribe();
  state?.closeLogger();
}
