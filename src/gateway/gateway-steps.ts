/**
 * The steps of `startGateway` (src/gateway/gateway.ts) that stand on their own:
 * loading the plugins, starting and readying their services (and stopping them in
 * reverse), and building the HTTP app with the dashboard. The order they run in is
 * described once, in gateway.ts.
 */
import path from "node:path";
import type { GatewayConfig } from "./config/gateway-config";
import { GatewayConfigError } from "./config/config-error";
import type { GatewayLogger } from "./logger";
import type { HostState } from "./host-state";
import { discoverConfiguredPlugins } from "./plugins/discover";
import { operatorStatus } from "./http/operator-status";
import { loadPlugins, type LoadedPlugins } from "./plugins/plugin-loader";
import { createGatewayApp } from "./http/create-app";
import { dashboardHostRule } from "./http/dashboard-hosts";
import type { createPrometheusMetrics } from "../host-contract/prometheus-metrics";
import { createOperatorThrottle } from "./http/operator-throttle";
import { createDashboard } from "./ui/ui-router";
import { createLoginCodes } from "./ui/login-codes";
import { MAIN_SESSION_KEY } from "./runtime";
import type { JournalRecord } from "./journal/journal";
import { readJournalTail } from "./journal/journal-tail";

type Log = ReturnType<GatewayLogger["child"]>;
type Metrics = ReturnType<typeof createPrometheusMetrics>;

/** Discovers and loads the enabled plugins; each one's verdict is a journal line. */
export function loadGatewayPlugins(
  args: { config: GatewayConfig; builtinDir: string | null | undefined; host: HostState; logger: GatewayLogger; metrics: Metrics },
  journalLine: (record: JournalRecord) => void,
): LoadedPlugins {
  const { config, host } = args;
  const discovered = discoverConfiguredPlugins(config, args.builtinDir);
  const plugins = loadPlugins({
    config,
    discovered,
    runtime: host.runtime,
    events: host.events,
    logger: args.logger,
    channels: host.channels,
    metrics: args.metrics.forPlugin,
  });
  for (const r of plugins.reports) {
    journalLine({ type: "plugin", id: r.id ?? path.basename(r.dir), status: r.status, ...(r.reason ? { reason: r.reason } : {}) });
  }
  return plugins;
}

export interface ServiceSteps {
  /** Starts every service in order; a failure aborts the start (a plugin's ConfigError as invalid config). */
  startAll(services: LoadedPlugins["services"], abort: (e: unknown) => Promise<never>): Promise<void>;
  /** Tells the started services that nothing can fail the start any more. */
  readyAll(abort: (e: unknown) => Promise<never>): Promise<void>;
  /** Stops the started services in reverse order, logging (not throwing) failures. */
  stopAll(): Promise<void>;
}

export function createServiceSteps(configPath: string | undefined, log: Log): ServiceSteps {
  const started: LoadedPlugins["services"] = [];
  return {
    async startAll(services, abort) {
      for (const s of services) {
        try {
          await s.start();
          started.push(s);
        } catch (e) {
          // A plugin that finds its config wrong only when it starts (e.g. a secret's variable is unset) stops the start as invalid config.
          const err = e as Error;
          await abort(
            err?.name === "ConfigError"
              ? GatewayConfigError.fromPluginMessage(configPath, err.message)
              : new Error(`service ${s.id} of plugin ${s.pluginId} failed to start: ${err?.message ?? String(e)}`),
          );
        }
      }
    },
    async readyAll(abort) {
      for (const s of started) {
        if (!s.ready) continue;
        try {
          await s.ready();
        } catch (e) {
          await abort(new Error(`service ${s.id} of plugin ${s.pluginId} failed to get ready: ${(e as Error).message}`));
        }
      }
    },
    async stopAll() {
      for (const s of [...started].reverse()) {
        try {
          await s.stop();
        } catch (e) {
          log.error(`service ${s.id} failed to stop`, { plugin: s.pluginId, error: (e as Error).message });
        }
      }
      started.length = 0;
    },
  };
}

/** The gateway's Express app with the dashboard (one operator-token throttle for every route and carrier) and its one-time login codes. */
export function buildGatewayApp(args: {
  config: GatewayConfig;
  authToken: string | undefined;
  plugins: LoadedPlugins;
  host: HostState;
  logger: GatewayLogger;
  log: Log;
  metrics: Metrics;
  isStopping: () => boolean;
}) {
  const { config, plugins, host, log } = args;
  const operatorThrottle = createOperatorThrottle();
  const loginCodes = args.authToken ? createLoginCodes() : undefined;
  const hosts = dashboardHostRule(config.bind, config.uiAllowedHosts);
  const dashboard = createDashboard({
    hosts,
    authToken: args.authToken,
    operatorRoutes: plugins.operatorRoutes,
    logger: args.logger.child("ui"),
    journal: () => readJournalTail(host.journal.file),
    throttle: operatorThrottle,
    loginCodes,
  });
  const app = createGatewayApp({
    ui: dashboard.router,
    hosts,
    operatorThrottle,
    isStopping: args.isStopping,
    routes: plugins.routes,
    authToken: args.authToken,
    metrics: args.metrics,
    trustProxy: config.trustProxy,
    logger: log,
    status: () => ({
      plugins: plugins.reports,
      channels: host.channels.list(),
      mainSession: {
        pending: host.sessions.get(MAIN_SESSION_KEY).pending.length,
        lastRoute: host.channels.resolveLast(MAIN_SESSION_KEY) ?? null,
      },
      heartbeat: { everyMs: config.heartbeatEveryMs },
      // The inspector's `hooks` summary and `dashboard.liveFeeds`.
      ...operatorStatus(plugins.operatorRoutes, log),
    }),
  });
  return { app, dashboard, loginCodes };
}
