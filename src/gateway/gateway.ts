/**
 * The embedded gateway process: loads the enabled plugins against the host
 * contract, starts their services (all before listening), serves HTTP, runs the
 * heartbeat, and stops everything in reverse on `stop()`.
 *
 * Start order — everything that can fail comes first, so a failed start has no
 * effect on accepted work: the main session is read (a damaged snapshot stops
 * here, naming the file), plugins load, services `start()` (open and check their
 * state), the server listens; only then are services told `ready()` (the hooks
 * plugin resumes queued runs and reports interrupted ones there) and the
 * heartbeat starts.
 *
 * @example
 *   const gw = await startGateway({ config: loadGatewayConfig({ configFlag: "gateway.config.json" }).config });
 *   console.log(gw.url);
 *   await gw.stop();
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import type { GatewayConfig } from "./config/gateway-config";
import { GatewayConfigError, gatewayConfigErrors } from "./config/config-error";
import { resolveGatewayAuthToken } from "./config/auth-token";
import { createGatewayLogger, type GatewayLogger } from "./logger";
import { PACKAGE_ROOT, STATE_FILES } from "./paths";
import { createHostState, type HostState } from "./host-state";
import { discoverPlugins } from "./plugins/discover";
import { openPluginState } from "./plugins/plugin-state";
import { hooksStatus } from "./http/hooks-status";
import { loadPlugins, type LoadedPlugins, type PluginReport } from "./plugins/plugin-loader";
import { bindWarning } from "./bind-warning";
import { createClientErrorHandler } from "./http/client-error";
import { createGatewayApp } from "./http/create-app";
import { createGatewayMetrics } from "./metrics/gateway-metrics";
import { ensurePortFree, portInUse } from "./http/port-check";
import { createOperatorThrottle } from "./http/operator-throttle";
import { createDashboard } from "./ui/ui-router";
import { createLoginCodes } from "./ui/login-codes";
import { createExpressServer } from "./http/express-server";
import { MAIN_SESSION_KEY } from "./runtime";
import { SessionStateError } from "./sessions/session-store";
import type { JournalRecord } from "./journal/journal";
import { readJournalTail } from "./journal/journal-tail";

/** After the grace period, how long requests still in flight may take before their connections are cut. */
const IN_FLIGHT_CLOSE_MS = 1000;

export interface StartGatewayOptions {
  config: GatewayConfig;
  logger?: GatewayLogger;
  env?: NodeJS.ProcessEnv;
  /** Directory of the built-in plugin (default: this package); null for none. */
  builtinDir?: string | null;
}

export interface RunningGateway {
  url: string;
  port: number;
  plugins: PluginReport[];
  routes: Array<{ prefix: string; pluginId: string }>;
  host: HostState;
  /** A new one-time login link for `/ui` (opens the deliveries page), and when it expires; undefined without `gateway.auth.token`. */
  loginLink(): { url: string; expiresAt: number } | undefined;
  /** Idempotent; resolves when everything is stopped. */
  stop(): Promise<void>;
}

export { isLoopback } from "./bind-warning";

function urlOf(bind: string, port: number): string {
  return `http://${bind.includes(":") ? `[${bind}]` : bind}:${port}`;
}

function listen(server: http.Server, config: GatewayConfig): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException) => {
      const { port, bind } = config;
      const file = { file: config.configPath };
      if (e.code === "EADDRINUSE") reject(portInUse(bind, port, config.configPath));
      else if (e.code === "EADDRNOTAVAIL") reject(gatewayConfigErrors.bindUnavailable({ bind }, file));
      else reject(gatewayConfigErrors.cannotListen({ bind, port, reason: e.code ?? e.message }, file));
    };
    server.once("error", onError);
    server.listen(config.port, config.bind, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Reads the main session (snapshot + log) before anything else runs; a damaged one stops the start with one line. */
function checkMainSession(host: HostState): void {
  try {
    host.sessions.has(MAIN_SESSION_KEY);
  } catch (e) {
    if (!(e instanceof SessionStateError)) throw e;
    throw new Error(
      `the main session file ${e.file} is damaged: ${e.reason}. Restore it from a backup, or move it aside to start with an empty main session (its pending events and history are then lost).`,
    );
  }
}

export async function startGateway(opts: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = opts;
  const authToken = resolveGatewayAuthToken(config, opts.env);
  // A busy port stops the start before any plugin loads or logs (one line, not a stack of them).
  await ensurePortFree(config.bind, config.port, config.configPath);
  fs.mkdirSync(config.stateDir, { recursive: true });
  const logger = opts.logger ?? createGatewayLogger(config.logLevel, { ...(config.logFormat ? { format: config.logFormat } : {}), ...(opts.env ? { env: opts.env } : {}) });
  const log = logger.child("gateway");
  const host = createHostState(config, logger, opts.env);
  /** Lifecycle lines are informational: a full disk must not stop a start or a stop. */
  const journalLine = (record: JournalRecord) => {
    try {
      host.journal.append(record);
    } catch (e) {
      log.warn("journal line not written", { type: record.type, error: (e as Error).message });
    }
  };
  try {
    checkMainSession(host);
  } catch (e) {
    host.journal.close();
    throw e;
  }
  host.events.emit("gateway", { phase: "starting" });

  const discovered = discoverPlugins({
    builtinDir: opts.builtinDir === null ? undefined : (opts.builtinDir ?? PACKAGE_ROOT),
    paths: config.pluginPaths,
    installedDir: path.join(config.stateDir, STATE_FILES.pluginsDir),
    state: openPluginState(config.stateDir),
  });
  const metrics = createGatewayMetrics({ logger: log });
  let plugins: LoadedPlugins;
  try {
    plugins = loadPlugins({ config, discovered, runtime: host.runtime, events: host.events, logger, channels: host.channels, metrics: metrics.forPlugin });
  } catch (e) {
    host.journal.close();
    throw e;
  }
  for (const r of plugins.reports) {
    journalLine({ type: "plugin", id: r.id ?? path.basename(r.dir), status: r.status, ...(r.reason ? { reason: r.reason } : {}) });
  }

  const started: LoadedPlugins["services"] = [];
  const stopServices = async () => {
    for (const s of [...started].reverse()) {
      try {
        await s.stop();
      } catch (e) {
        log.error(`service ${s.id} failed to stop`, { plugin: s.pluginId, error: (e as Error).message });
      }
    }
    started.length = 0;
  };
  let server: http.Server | undefined;
  const abortStart = async (e: unknown): Promise<never> => {
    if (server?.listening) {
      dashboard?.close();
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    }
    await stopServices();
    await plugins.deactivate();
    host.journal.close();
    throw e;
  };

  if (config.mainLastRoute && !host.channels.has(config.mainLastRoute.channel)) {
    await abortStart(gatewayConfigErrors.lastRouteChannelUnknown({ channels: host.channels.list().join(", ") }, { file: config.configPath }));
  }

  for (const s of plugins.services) {
    try {
      await s.start();
      started.push(s);
    } catch (e) {
      // A plugin that finds its config wrong only when it starts (e.g. a secret's variable is unset) stops the start as invalid config.
      const err = e as Error;
      await abortStart(
        err?.name === "ConfigError"
          ? GatewayConfigError.fromPluginMessage(config.configPath, err.message)
          : new Error(`service ${s.id} of plugin ${s.pluginId} failed to start: ${err?.message ?? String(e)}`),
      );
    }
  }

  let draining = false;
  // One throttle for the operator token on every route and carrier (/ui login and Bearer, /api, /metrics).
  const operatorThrottle = createOperatorThrottle();
  const loginCodes = authToken ? createLoginCodes() : undefined;
  const dashboard = createDashboard({ authToken, inspectors: plugins.inspectors, logger: logger.child("ui"), journal: () => readJournalTail(host.journal.file), throttle: operatorThrottle, loginCodes });
  const app = createGatewayApp({
    ui: dashboard.router,
    operatorThrottle,
    isStopping: () => draining,
    routes: plugins.routes,
    authToken,
    metrics,
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
      hooks: hooksStatus(plugins.inspectors, log),
    }),
  });
  server = createExpressServer(app);
  server.on("clientError", createClientErrorHandler({ logger: log }));
  let port: number;
  try {
    port = await listen(server, config);
  } catch (e) {
    return abortStart(e);
  }

  // Nothing can fail the start any more: services may now act on accepted work.
  for (const s of started) {
    if (!s.ready) continue;
    try {
      await s.ready();
    } catch (e) {
      await abortStart(new Error(`service ${s.id} of plugin ${s.pluginId} failed to get ready: ${(e as Error).message}`));
    }
  }
  const url = urlOf(config.bind, port);
  const exposed = bindWarning(config.bind);
  if (exposed) log.warn(exposed);
  host.heartbeat.start();
  journalLine({ type: "gateway", phase: "started", url, pid: process.pid });
  log.info("gateway started", { url, plugins: plugins.reports.filter((r) => r.status === "active").length });

  let stopping: Promise<void> | undefined;
  // SPEC §7: the listener stays open while services drain (running runs get their
  // grace period); new requests meanwhile get 503 shutting_down, not a refused
  // connection. Only then does the server stop listening and close connections.
  const stop = () =>
    (stopping ??= (async () => {
      draining = true;
      host.events.emit("gateway", { phase: "stopping" });
      journalLine({ type: "gateway", phase: "stopping" });
      log.info("gateway stopping");
      await host.heartbeat.stop();
      await stopServices();
      dashboard.close();
      // Stop listening; requests in flight (answered with Connection: close) get a moment to finish.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cut = setTimeout(() => server.closeAllConnections(), IN_FLIGHT_CLOSE_MS);
      await closed;
      clearTimeout(cut);
      await plugins.deactivate();
      journalLine({ type: "gateway", phase: "stopped" });
      host.journal.close();
      log.info("gateway stopped");
    })());

  return {
    url,
    port,
    plugins: plugins.reports,
    routes: plugins.routes.map((r) => ({ prefix: r.prefix, pluginId: r.pluginId })),
    host,
    loginLink() {
      if (!loginCodes) return undefined;
      const { code, expiresAt } = loginCodes.issue();
      return { url: `${url}/ui/login?code=${code}`, expiresAt };
    },
    stop,
  };
}
