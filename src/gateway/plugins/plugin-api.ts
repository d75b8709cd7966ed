/**
 * Builds the `PluginApi` handed to one plugin's `activate(api)`. Registrations
 * are staged: the loader commits them only when `activate` returned normally, so
 * a plugin that throws leaves nothing half-registered.
 */
import type { EventEmitter } from "eventemitter3";
import {
  HOST_API_VERSION,
  type ChannelRegistration,
  type CliRegistrar,
  type HookPresetContribution,
  type HostEvents,
  type HostLogger,
  type HostRuntime,
  type PluginApi,
  type ServiceRegistration,
} from "../../host-contract/host-api";
import type { HttpRouteRegistration } from "../../host-contract/http-route";
import type { OperatorRouteRegistration } from "../../host-contract/operator-route";
import type { HookRole } from "../../host-contract/hook-role";
import type { HostMetrics } from "../../host-contract/metrics";

export interface StagedRegistrations {
  routes: HttpRouteRegistration[];
  services: ServiceRegistration[];
  clis: CliRegistrar[];
  presets: HookPresetContribution[];
  channels: ChannelRegistration[];
  operatorRoutes: OperatorRouteRegistration[];
}

export interface PluginApiOptions {
  pluginId: string;
  config: Readonly<Record<string, unknown>>;
  configDir: string;
  configPath?: string;
  stateDir: string;
  logger: HostLogger;
  events: EventEmitter<HostEvents>;
  runtime: HostRuntime;
  /** Presets of all enabled plugins, including ones registered so far. */
  listPresets: () => HookPresetContribution[];
  /** Called when the plugin registers a preset provider (so others see it at once). */
  onPreset: (preset: HookPresetContribution) => void;
  /** The plugin's metrics port (host API 1.3); absent in CLI mode. */
  metrics?: HostMetrics;
  /** Where the gateway of this state dir runs now (host API 1.4). */
  runningGatewayUrl?: () => string | undefined;
  /** `gateway.role` / `--role` (host API 2.2); absent: consumer. */
  role?: HookRole;
}

/** `"hooks/"` → `"/hooks"`; throws for `/`, empty, or characters outside a URL path. */
export function normalizePrefix(prefix: unknown): string {
  if (typeof prefix !== "string" || prefix.trim() === "") throw new Error("registerHttpRoute: prefix must be a non-empty string");
  let p = prefix.trim();
  if (!p.startsWith("/")) p = `/${p}`;
  p = p.replace(/\/+$/, "");
  if (p === "") throw new Error('registerHttpRoute: prefix "/" is refused (it would take every route)');
  if (!/^(\/[A-Za-z0-9._~!$&'()*+,;=:@%-]+)+$/.test(p)) throw new Error(`registerHttpRoute: prefix "${prefix}" is not a valid URL path`);
  return p;
}

/** Deep-freezes a JSON-like value (the config snapshot plugins get). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}

export function createPluginApi(opts: PluginApiOptions): { api: PluginApi; staged: StagedRegistrations } {
  const staged: StagedRegistrations = { routes: [], services: [], clis: [], presets: [], channels: [], operatorRoutes: [] };
  const api: PluginApi = {
    pluginId: opts.pluginId,
    config: opts.config,
    configDir: opts.configDir,
    ...(opts.configPath ? { configPath: opts.configPath } : {}),
    stateDir: opts.stateDir,
    logger: opts.logger,
    events: opts.events,
    runtime: opts.runtime,
    hostApiVersion: HOST_API_VERSION,
    ...(opts.role ? { role: opts.role } : {}),
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    runningGatewayUrl: () => opts.runningGatewayUrl?.(),
    registerHttpRoute(route) {
      if (typeof route?.handler !== "function") throw new Error("registerHttpRoute: handler must be a function (req, res, context) (host API 2.0)");
      staged.routes.push({ prefix: normalizePrefix(route.prefix), handler: route.handler });
    },
    registerService(service) {
      if (!service || typeof service.id !== "string" || typeof service.start !== "function" || typeof service.stop !== "function") {
        throw new Error("registerService: a service needs an id, start() and stop()");
      }
      if (service.ready !== undefined && typeof service.ready !== "function") throw new Error("registerService: ready, when given, must be a function");
      staged.services.push(service);
    },
    registerCli(registrar) {
      if (typeof registrar !== "function") throw new Error("registerCli: the registrar must be a function (program) => void");
      staged.clis.push(registrar);
    },
    registerPresetProvider(preset) {
      if (!preset || typeof preset.name !== "string" || !Array.isArray(preset.mappings)) {
        throw new Error("registerPresetProvider: a preset needs a name and a mappings array");
      }
      const own: HookPresetContribution = { ...preset, pluginId: opts.pluginId };
      staged.presets.push(own);
      opts.onPreset(own);
    },
    listPresets: () => opts.listPresets(),
    registerChannel(channel) {
      if (!channel || typeof channel.id !== "string" || typeof channel.deliver !== "function") {
        throw new Error("registerChannel: a channel needs an id and deliver()");
      }
      staged.channels.push(channel);
    },
    registerOperatorRoute(route) {
      if (!route || typeof route.path !== "string" || !/^\/[a-z0-9-]+$/.test(route.path) || typeof route.handler !== "function") {
        throw new Error("registerOperatorRoute: a route needs a path of one segment (e.g. /ui) and a handler");
      }
      if (staged.operatorRoutes.some((r) => r.path === route.path)) throw new Error(`registerOperatorRoute: ${route.path} is registered twice`);
      staged.operatorRoutes.push(route);
    },
  };
  return { api, staged };
}
