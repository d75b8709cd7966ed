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
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { GatewayConfig } from "./config/gateway-config";
import { gatewayConfigErrors } from "./config/config-error";
import { resolveGatewayAuthToken } from "./config/auth-token";
import { createGatewayLogger, type GatewayLogger } from "./logger";
import { startSessionSweep } from "./sessions/session-sweep";
import { createHostState, type HostState } from "./host-state";
import type { LoadedPlugins, PluginReport } from "./plugins/plugin-loader";
import { buildGatewayApp, createServiceSteps, loadGatewayPlugins } from "./gateway-steps";
import { bindWarning } from "./bind-warning";
import { createClientErrorHandler } from "./http/client-error";
import { createPrometheusMetrics } from "../host-contract/prometheus-metrics";
import { ensurePortFree, portInUse } from "./http/port-check";
import { acquireStateDirLock } from "./state-dir-lock";
import { MAIN_SESSION_KEY } from "./runtime";
import { SessionStateError } from "./sessions/session-store";
import type { JournalRecord } from "./journal/journal";
import { mkdirPrivate } from "../host-contract/private-fs";
import { connectHost } from "../host-contract/gateway-address";
import type { HostLogger } from "../host-contract/host-api";
import { writeListenRecord, type ListenRecord } from "./listen-record";

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

/**
 * Tells the commands of this state dir where the gateway listens (src/gateway/listen-record.ts).
 * Informational: when it cannot be written (a full disk) they fall back to the config's port or `--url`.
 */
function recordListening(config: GatewayConfig, port: number, log: Pick<HostLogger, "warn">): ListenRecord | undefined {
  try {
    return writeListenRecord(config.stateDir, `http://${connectHost(config.bind)}:${port}`);
  } catch (e) {
    log.warn("listen address not recorded: gateway commands need --url unless gateway.port is this port", { error: (e as Error).message });
    return undefined;
  }
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
  mkdirPrivate(config.stateDir);
  // So does a state dir another gateway runs on (src/gateway/state-dir-lock.ts).
  const lock = acquireStateDirLock(config.stateDir);
  try {
    const gw = await startOnStateDir(opts, authToken);
    return { ...gw, stop: () => gw.stop().finally(() => lock.release()) };
  } catch (e) {
    lock.release();
    throw e;
  }
}

/** The host's logger, state and journal, its main session checked (the journal closed again when that fails). */
function openHost(opts: StartGatewayOptions) {
  const { config } = opts;
  const logger =
    opts.logger ?? createGatewayLogger(config.logLevel, { ...(config.logFormat ? { format: config.logFormat } : {}), ...(opts.env ? { env: opts.env } : {}) });
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
  return { logger, log, host, journalLine };
}

/** The start once the port was free and the state dir is this gateway's. */
async function startOnStateDir(opts: StartGatewayOptions, authToken: string | undefined): Promise<RunningGateway> {
  const { config } = opts;
  const { logger, log, host, journalLine } = openHost(opts);
  host.events.emit("gateway", { phase: "starting" });

  const metrics = createPrometheusMetrics({ logger: log });
  let plugins: LoadedPlugins;
  try {
    plugins = loadGatewayPlugins({ config, builtinDir: opts.builtinDir, host, logger, metrics }, journalLine);
  } catch (e) {
    host.journal.close();
    throw e;
  }

  const services = createServiceSteps(config.configPath, log);
  let server: http.Server | undefined;
  let dashboard: ReturnType<typeof buildGatewayApp>["dashboard"] | undefined;
  const abortStart = async (e: unknown): Promise<never> => {
    if (server?.listening) {
      dashboard?.close();
      const closed = new Promise<void>((resolve) => server!.close(() => resolve()));
      server.closeAllConnections();
      await closed;
    }
    await services.stopAll();
    await plugins.deactivate();
    host.journal.close();
    throw e;
  };

  if (config.mainLastRoute && !host.channels.has(config.mainLastRoute.channel)) {
    await abortStart(gatewayConfigErrors.lastRouteChannelUnknown({ channels: host.channels.list().join(", ") }, { file: config.configPath }));
  }

  await services.startAll(plugins.services, abortStart);

  let draining = false;
  const built = buildGatewayApp({ config, authToken, plugins, host, logger, log, metrics, isStopping: () => draining });
  dashboard = built.dashboard;
  const app = built.app;
  const loginCodes = built.loginCodes;
  server = http.createServer(app);
  server.on("clientError", createClientErrorHandler({ logger: log }));
  let port: number;
  try {
    port = await listen(server, config);
  } catch (e) {
    return abortStart(e);
  }

  // Nothing can fail the start any more: services may now act on accepted work.
  await services.readyAll(abortStart);
  const url = urlOf(config.bind, port);
  const exposed = bindWarning(config.bind);
  if (exposed) log.warn(exposed);
  // A receiver (--role receiver) runs no agent turn: no periodic heartbeat of the main session either.
  if (config.role !== "receiver") host.heartbeat.start();
  const record = recordListening(config, port, log);
  // Bounded disk (SPEC §7): only once the start has succeeded, so a failed start deletes nothing.
  const sessionSweep = startSessionSweep(host.sessions, {
    dir: host.sessions.dir,
    retentionDays: config.hookSessionRetentionDays,
    logger: logger.child("sessions"),
  });
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
      sessionSweep.stop();
      await services.stopAll();
      built.dashboard.close();
      // Stop listening; requests in flight (answered with Connection: close) get a moment to finish.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const cut = setTimeout(() => server.closeAllConnections(), IN_FLIGHT_CLOSE_MS);
      await closed;
      clearTimeout(cut);
      record?.release();
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
