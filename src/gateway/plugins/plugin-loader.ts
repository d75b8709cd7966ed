/**
 * Activates the enabled plugins: validates each one's config section against its
 * manifest (fatal: the user asked for this plugin and configured it wrong — and then,
 * activating nothing, asks each plugin's `configProblems` what else is wrong), loads
 * its entry module (a load failure only marks it broken), calls `activate(api)`
 * and commits its registrations. A `ConfigError` thrown by `activate` and a route
 * prefix collision are fatal; any other failure marks the plugin broken and the
 * gateway goes on without it.
 */
import fs from "node:fs";
import path from "node:path";
import type { EventEmitter } from "eventemitter3";
import type {
  CliRegistrar,
  ConfigCheckInput,
  HookPresetContribution,
  HostEvents,
  HostRuntime,
  PluginModule,
  ServiceRegistration,
} from "../../host-contract/host-api";
import type { OperatorRouteRegistration } from "../../host-contract/operator-route";
import type { HostMetrics } from "../../host-contract/metrics";
import type { GatewayConfig } from "../config/gateway-config";
import { GatewayConfigError, type ConfigProblem } from "../config/config-error";
import type { GatewayLogger } from "../logger";
import { STATE_FILES } from "../paths";
import { findCollision, type RouteEntry } from "./route-table";
import type { ChannelRegistry } from "../channels/channel-registry";
import type { DiscoveredPlugin } from "./discover";
import { checkPluginConfig } from "./plugin-config";
import { createPluginApi, deepFreeze } from "./plugin-api";
import { manifestPresets } from "./presets";
import { mkdirPrivate } from "../../host-contract/private-fs";
import { readRunningGatewayUrl } from "../listen-record";

export type PluginStatus = "active" | "broken" | "disabled" | "shadowed";

export interface PluginReport {
  id?: string;
  name?: string;
  version?: string;
  dir: string;
  origin: DiscoveredPlugin["origin"];
  status: PluginStatus;
  reason?: string;
}

export interface LoadedPlugins {
  reports: PluginReport[];
  routes: RouteEntry[];
  services: Array<ServiceRegistration & { pluginId: string }>;
  clis: Array<{ pluginId: string; registrar: CliRegistrar }>;
  /** Operator routes of the plugins (host API 2.1), in discovery order: the dashboard's pages and `/api/status` counts. */
  operatorRoutes: Array<{ pluginId: string; route: OperatorRouteRegistration }>;
  presets(): HookPresetContribution[];
  /** Calls `deactivate()` of the active plugins in reverse order (errors are logged). */
  deactivate(): Promise<void>;
}

export interface LoadPluginsOptions {
  config: GatewayConfig;
  discovered: DiscoveredPlugin[];
  runtime: HostRuntime;
  events: EventEmitter<HostEvents>;
  logger: GatewayLogger;
  /** Where plugin channels are registered (absent in CLI mode: registrations are ignored). */
  channels?: ChannelRegistry;
  /** The metrics port of each plugin (host API 1.3); absent in CLI mode (plugins then record nothing). */
  metrics?: (pluginId: string) => HostMetrics;
  /** Module loader (default: require). */
  load?: (file: string) => unknown;
}

/** The manifest key that configures a route, for error messages (e.g. `hooks.path`). */
function routeKey(p: DiscoveredPlugin): string | undefined {
  return p.manifest?.contributes?.httpRoutes?.find((r) => r.prefixFromConfig)?.prefixFromConfig;
}

function entryModule(mod: unknown): PluginModule | undefined {
  const m = mod as Partial<PluginModule> & { default?: Partial<PluginModule> };
  if (typeof m?.activate === "function") return m as PluginModule;
  if (typeof m?.default?.activate === "function") return m.default as PluginModule;
  return undefined;
}

/**
 * The problems each plugin's own `configProblems` (host contract) finds, asked while a section
 * failed its schema so no plugin is activated: the parts that passed are still checked, and one
 * start lists every problem. A line the schema check already gave is not repeated. A plugin
 * without `configProblems`, or whose module does not load (reported broken once the config is
 * fixed) or whose check fails unexpectedly, adds nothing.
 */
function pluginCheckProblems(
  enabled: DiscoveredPlugin[],
  input: ConfigCheckInput,
  load: (file: string) => unknown,
  listed: readonly ConfigProblem[],
): ConfigProblem[] {
  const seen = new Set(listed.map((p) => (p.key === undefined ? p.rule : `${p.key} ${p.rule}`)));
  const out: ConfigProblem[] = [];
  for (const p of enabled) {
    let mod: PluginModule | undefined;
    try {
      mod = entryModule(load(path.resolve(p.dir, p.manifest!.main)));
    } catch {
      continue;
    }
    if (typeof mod?.configProblems !== "function") continue;
    let lines: string[];
    try {
      lines = mod.configProblems(input);
    } catch {
      continue; // its activation, once the schema problems are fixed, reports it
    }
    for (const line of lines) {
      if (seen.has(line)) continue;
      seen.add(line);
      out.push({ rule: line });
    }
  }
  return out;
}

export function loadPlugins(opts: LoadPluginsOptions): LoadedPlugins {
  const { config } = opts;
  const load = opts.load ?? ((file: string) => require(file) as unknown);
  const log = opts.logger.child("plugins");
  const file = config.configPath;
  const snapshot = deepFreeze(effectiveSnapshot(config));
  const enabled = opts.discovered.filter((p) => p.status === "ok");

  // 1. All manifests are read: their presets are visible to every plugin's checks and activate.
  const presets: HookPresetContribution[] = enabled.flatMap((p) => manifestPresets(p.manifest!, p.dir));

  // 2. Config sections, before any plugin is activated: every problem of every section at once,
  // with what each plugin's own checks find in the parts that passed (nothing is registered).
  const sectionProblems = enabled.flatMap((p) => checkPluginConfig(p.manifest!, config.raw));
  if (sectionProblems.length > 0) {
    const input = { config: snapshot, configDir: config.configDir, presets: presets.map((x) => ({ ...x })), presetsComplete: enabled.length === 1 };
    throw GatewayConfigError.of(file, [...sectionProblems, ...pluginCheckProblems(enabled, input, load, sectionProblems)]);
  }
  /** ConfigErrors thrown by activate: every plugin is activated and all are reported together at the end. */
  const problems: ConfigProblem[] = [];
  const reports: PluginReport[] = opts.discovered.map((p) => ({
    ...(p.id ? { id: p.id } : {}),
    ...(p.manifest ? { name: p.manifest.name, version: p.manifest.version } : {}),
    dir: p.dir,
    origin: p.origin,
    status: p.status === "ok" ? "active" : p.status,
    ...(p.reason ? { reason: p.reason } : {}),
  }));
  const routes: RouteEntry[] = [];
  const services: LoadedPlugins["services"] = [];
  const clis: LoadedPlugins["clis"] = [];
  const operatorRoutes: LoadedPlugins["operatorRoutes"] = [];
  const active: Array<{ id: string; mod: PluginModule }> = [];

  opts.discovered.forEach((p, index) => {
    if (p.status !== "ok") return;
    const m = p.manifest!;
    const report = reports[index]!;
    const broken = (reason: string) => {
      report.status = "broken";
      report.reason = reason;
      log.error(`plugin ${m.id} is broken and was skipped: ${reason}`, { plugin: m.id });
    };

    let mod: PluginModule | undefined;
    try {
      mod = entryModule(load(path.resolve(p.dir, m.main)));
    } catch (e) {
      return broken(`cannot load ${m.main}: ${(e as Error).message.split("\n")[0]}`);
    }
    if (!mod) return broken(`${m.main} does not export activate(api)`);

    const stateDir = pluginStateDir(config.stateDir, m.id);
    const { api, staged } = createPluginApi({
      pluginId: m.id,
      config: snapshot,
      configDir: config.configDir,
      configPath: config.configPath,
      stateDir,
      logger: opts.logger.child(m.id),
      events: opts.events,
      runtime: opts.runtime,
      listPresets: () => presets.map((x) => ({ ...x })),
      onPreset: (preset) => presets.push(preset),
      ...(opts.metrics ? { metrics: opts.metrics(m.id) } : {}),
      runningGatewayUrl: () => readRunningGatewayUrl(config.stateDir),
      role: config.role,
    });
    const dropPresets = () => {
      for (const s of staged.presets) presets.splice(presets.indexOf(s), 1);
    };
    try {
      const ret = (mod.activate as (a: unknown) => unknown)(api);
      if (ret && typeof (ret as Promise<unknown>).then === "function") {
        dropPresets();
        return broken("activate(api) returned a promise; it must be synchronous (do async work in a registered service)");
      }
    } catch (e) {
      const err = e as Error;
      dropPresets();
      if (err?.name === "ConfigError") return void problems.push(...GatewayConfigError.fromPluginMessage(file, err.message).problems);
      return broken(`activate failed: ${err?.message ?? String(e)}`);
    }

    // Check every staged registration before committing any.
    for (const r of staged.routes) {
      const hit =
        findCollision(r.prefix, routes) ??
        (staged.routes.filter((o) => o !== r).some((o) => o.prefix.toLowerCase() === r.prefix.toLowerCase())
          ? { prefix: r.prefix, owner: `plugin ${m.id}` }
          : undefined);
      if (hit) {
        const key = routeKey(p);
        throw new GatewayConfigError(file, key, `${key ? "" : `plugin ${m.id} route `}"${r.prefix}" collides with ${hit.owner}'s route "${hit.prefix}"`.trim());
      }
    }
    if (opts.channels) {
      const taken = staged.channels.find((c) => opts.channels!.has(c.id));
      if (taken) {
        dropPresets();
        return broken(`channel "${taken.id}" is already provided`);
      }
      for (const c of staged.channels) {
        try {
          opts.channels.register(c.id, (req) => c.deliver(req), m.id);
        } catch (e) {
          dropPresets();
          return broken((e as Error).message);
        }
      }
    }
    for (const r of staged.routes) routes.push({ prefix: r.prefix, handler: r.handler, pluginId: m.id });
    for (const s of staged.services) {
      services.push({ id: s.id, start: () => s.start(), ...(s.ready ? { ready: () => s.ready!() } : {}), stop: () => s.stop(), pluginId: m.id });
    }
    for (const c of staged.clis) clis.push({ pluginId: m.id, registrar: c });
    for (const route of staged.operatorRoutes) operatorRoutes.push({ pluginId: m.id, route });
    active.push({ id: m.id, mod });
    log.info(`plugin ${m.id} ${m.version} active`, { plugin: m.id, origin: p.origin, routes: staged.routes.length, services: staged.services.length });
  });

  if (problems.length > 0) throw GatewayConfigError.of(file, problems);

  return {
    reports,
    routes,
    services,
    clis,
    operatorRoutes,
    presets: () => presets.map((x) => ({ ...x })),
    async deactivate() {
      for (const { id, mod } of [...active].reverse()) {
        try {
          await mod.deactivate?.();
        } catch (e) {
          log.error(`plugin ${id} deactivate failed`, { plugin: id, error: (e as Error).message });
        }
      }
    },
  };
}

/**
 * The config snapshot plugins see: the file as loaded, except that `gateway.port`
 * is the port the gateway will listen on when `--port` overrode it (so a plugin
 * that derives its own URL, like the mail watcher's default hook URL, gets the
 * right one). `--port 0` (a free port chosen at listen time) is left as the file
 * has it: that port is not known before plugins start.
 */
function effectiveSnapshot(config: GatewayConfig): Record<string, unknown> {
  const raw = structuredClone(config.raw);
  const gw = raw.gateway;
  if (config.port === 0 || (gw !== null && typeof gw === "object" && (gw as Record<string, unknown>).port === config.port)) return raw;
  raw.gateway = { ...(gw !== null && typeof gw === "object" && !Array.isArray(gw) ? (gw as Record<string, unknown>) : {}), port: config.port };
  return raw;
}

/** A plugin's own state dir (created, private). */
function pluginStateDir(stateRoot: string, id: string): string {
  const dir = path.join(stateRoot, STATE_FILES.pluginData, id);
  mkdirPrivate(dir);
  return dir;
}
