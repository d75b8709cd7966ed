/**
 * The embedded gateway process: loads the enabled plugins against the host
 * contract, starts their services (all before listening), serves HTTP, runs the
 * heartbeat, and stops everything in reverse on `stop()`.
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
import { GatewayConfigError } from "./config/config-error";
import { createGatewayLogger, type GatewayLogger } from "./logger";
import { PACKAGE_ROOT, STATE_FILES } from "./paths";
import { createHostState, type HostState } from "./host-state";
import { discoverPlugins } from "./plugins/discover";
import { openPluginState } from "./plugins/plugin-state";
import { loadPlugins, type LoadedPlugins, type PluginReport } from "./plugins/plugin-loader";
import { bindWarning } from "./bind-warning";
import { createClientErrorHandler } from "./http/client-error";
import { createGatewayApp } from "./http/create-app";
import { MAIN_SESSION_KEY } from "./runtime";

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
      const rule =
        e.code === "EADDRINUSE"
          ? `${config.port} is already in use on ${config.bind}`
          : e.code === "EADDRNOTAVAIL"
            ? `cannot bind ${config.bind} (address not available)`
            : `cannot listen on ${config.bind}:${config.port} (${e.code ?? e.message})`;
      reject(new GatewayConfigError(config.configPath, e.code === "EADDRNOTAVAIL" ? "gateway.bind" : "gateway.port", rule));
    };
    server.once("error", onError);
    server.listen(config.port, config.bind, () => {
      server.off("error", onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

export async function startGateway(opts: StartGatewayOptions): Promise<RunningGateway> {
  const { config } = opts;
  fs.mkdirSync(config.stateDir, { recursive: true });
  const logger = opts.logger ?? createGatewayLogger(config.logLevel);
  const log = logger.child("gateway");
  const host = createHostState(config, logger, opts.env);
  host.events.emit("gateway", { phase: "starting" });

  const discovered = discoverPlugins({
    builtinDir: opts.builtinDir === null ? undefined : (opts.builtinDir ?? PACKAGE_ROOT),
    paths: config.pluginPaths,
    installedDir: path.join(config.stateDir, STATE_FILES.pluginsDir),
    state: openPluginState(config.stateDir),
  });
  let plugins: LoadedPlugins;
  try {
    plugins = loadPlugins({ config, discovered, runtime: host.runtime, events: host.events, logger, channels: host.channels });
  } catch (e) {
    host.journal.close();
    throw e;
  }
  for (const r of plugins.reports) {
    host.journal.append({ type: "plugin", id: r.id ?? path.basename(r.dir), status: r.status, ...(r.reason ? { reason: r.reason } : {}) });
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
  const abortStart = async (e: unknown): Promise<never> => {
    await stopServices();
    await plugins.deactivate();
    host.journal.close();
    throw e;
  };

  if (config.mainLastRoute && !host.channels.has(config.mainLastRoute.channel)) {
    await abortStart(new GatewayConfigError(config.configPath, "session.main.lastRoute.channel", `must be one of: ${host.channels.list().join(", ")}`));
  }

  for (const s of plugins.services) {
    try {
      await s.start();
      started.push(s);
    } catch (e) {
      await abortStart(new Error(`service ${s.id} of plugin ${s.pluginId} failed to start: ${(e as Error).message}`));
    }
  }

  let draining = false;
  const app = createGatewayApp({
    isStopping: () => draining,
    routes: plugins.routes,
    authToken: config.authToken,
    logger: log,
    status: () => ({
      plugins: plugins.reports,
      channels: host.channels.list(),
      mainSession: {
        pending: host.sessions.get(MAIN_SESSION_KEY).pending.length,
        lastRoute: host.channels.resolveLast(MAIN_SESSION_KEY) ?? null,
      },
      heartbeat: { everyMs: config.heartbeatEveryMs },
    }),
  });
  const server = http.createServer(app);
  server.on("clientError", createClientErrorHandler({ logger: log }));
  let port: number;
  try {
    port = await listen(server, config);
  } catch (e) {
    return abortStart(e);
  }
  const url = urlOf(config.bind, port);
  const exposed = bindWarning(config.bind);
  if (exposed) log.warn(exposed);
  host.heartbeat.start();
  host.journal.append({ type: "gateway", phase: "started", url, pid: process.pid });
  log.info("gateway started", { url, plugins: plugins.reports.filter((r) => r.status === "active").length });

  let stopping: Promise<void> | undefined;
  // SPEC §7: the listener stays open while services drain (running runs get their
  // grace period); new requests meanwhile get 503 shutting_down, not a refused
  // connection. Only then does the server stop listening and close connections.
  const stop = () =>
    (stopping ??= (async () => {
      draining = true;
      host.events.emit("gateway", { phase: "stopping" });
      host.journal.append({ type: "gateway", phase: "stopping" });
      log.info("gateway stopping");
      await host.heartbeat.stop();
      await stopServices();
      // Stop listening; requests in flight (answered with Connection: close) get a moment to finish.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cut = setTimeout(() => server.closeAllConnections(), IN_FLIGHT_CLOSE_MS);
      await closed;
      clearTimeout(cut);
      await plugins.deactivate();
      host.journal.append({ type: "gateway", phase: "stopped" });
      host.journal.close();
      log.info("gateway stopped");
    })());

  return {
    url,
    port,
    plugins: plugins.reports,
    routes: plugins.routes.map((r) => ({ prefix: r.prefix, pluginId: r.pluginId })),
    host,
    stop,
  };
}
