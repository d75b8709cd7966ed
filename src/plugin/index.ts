/**
 * Plugin entry: the composition root. `activate(api)` is synchronous — it
 * resolves and validates config (throwing a ConfigError naming the key) and
 * registers the HTTP route, the runs service and the CLI. Opening the durable
 * store and starting workers happens in the service's `start()`.
 */
import type { PluginApi } from "./host-api";
import { resolveConfig } from "../config/resolve";
import { createPluginLogger } from "../logging/logger";
import { createPluginEmitter, type PluginEmitter } from "../events";
import { createHooksRouter } from "../http/router";
import { createRunExecutor } from "../runs/executor";
import { createRunQueue } from "../runs/run-queue";
import type { RunQueue } from "../runs/types";
import { createSqliteRunStore } from "../runs/sqlite-store";
import { createDispatcher } from "../runs/dispatcher";
import { createMappingEngine } from "../mappings/engine";
import { createIdempotencyGuard } from "../reliability/idempotency";
import { createRateLimiter } from "../reliability/rate-limit";
import { registerWebhooksCli } from "../cli/webhooks";
import { openPluginDatabase, type PluginDatabase } from "../reliability/database";
import { createMailService } from "../mail/service";

export type { PluginApi } from "./host-api";
export { defineTransform } from "../mappings/define-transform";
export type { TransformContext, TransformResult, TransformFn } from "../mappings/define-transform";

interface ActiveState {
  emitter: PluginEmitter;
  queue?: RunQueue;
  db?: PluginDatabase;
  closeLogger(): void;
}

let active: ActiveState | undefined;

/** Emitter of the active plugin instance (for in-process subscribers and tests). */
export function pluginEvents(): PluginEmitter | undefined {
  return active?.emitter;
}

export function activate(api: PluginApi): void {
  const logs = createPluginLogger(api.logger, api.pluginId);
  const log = logs.forModule("plugin");
  const config = resolveConfig(api.config, { configDir: api.configDir });
  const emitter = createPluginEmitter();
  const state: ActiveState = { emitter, closeLogger: () => logs.close() };
  active = state;

  // Mappings are compiled at activation so bad mappings/presets fail start.
  const mappings = createMappingEngine({
    config,
    presets: api.listPresets(),
    logger: logs.forModule("mappings"),
    configDir: api.configDir,
  });

  registerWebhooksCli(api, { config, mappings, logs });

  api.events.on("heartbeat", (e) => log.debug("host heartbeat", { phase: e.phase, reason: e.reason }));
  api.events.on("session", (e) => log.debug("host session event", { phase: e.phase, sessionKey: e.sessionKey }));

  if (!config.enabled) {
    log.info("hooks disabled (hooks.enabled is not true); no HTTP listener registered");
    return;
  }

  let shuttingDown = false;
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
    isShuttingDown: () => shuttingDown,
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
      isShuttingDown: () => shuttingDown,
    }),
  });

  api.registerService({
    id: "inbound-webhooks.runs",
    start: async () => {
      db = openPluginDatabase({ dir: api.stateDir, logger: logs.forModule("store") });
      state.db = db;
      queue = createRunQueue({
        store: createSqliteRunStore(db),
        executor,
        config: config.runs,
        runtime: api.runtime,
        logger: logs.forModule("runs"),
        emitter,
      });
      state.queue = queue;
      await queue.start();
    },
    stop: async () => {
      shuttingDown = true;
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
  state?.closeLogger();
}
