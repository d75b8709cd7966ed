/**
 * The plugin's entry inside OpenClaw (`package.json#openclaw.extensions`): OpenClaw
 * calls `register(api)` with its plugin API; this builds the host contract
 * (src/host-contract/) from it and activates the plugin exactly as the embedded
 * gateway does (src/plugin/index.ts is the same entry; it knows nothing of OpenClaw).
 *
 * - config: `plugins.entries.inbound-webhooks.config` → the plugin's `hooks`
 *   (config-snapshot.ts); `configSection` tells the plugin to name its keys so in every
 *   sentence (start errors, answers, log lines, stored runs).
 * - routes → `api.registerHttpRoute` (http-route.ts); services → one OpenClaw service
 *   (services.ts); CLI → `openclaw inbound-webhooks …` (cli.ts); logger → OpenClaw's; lifecycle events
 *   (`gateway_start`/`gateway_stop`, `session_start`/`session_end`) → the contract's
 *   `gateway`/`session` events; state → `<OpenClaw state dir>/inbound-webhooks`.
 * - runtime → host-runtime.ts; presets of preset plugins installed into OpenClaw → preset-plugins.ts.
 */
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import {
  HOST_API_VERSION,
  type CliRegistrar,
  type HookPresetContribution,
  type HostEvents,
  type PluginApi,
  type ServiceRegistration,
} from "../../host-contract/host-api";
import type { HttpRouteRegistration } from "../../host-contract/http-route";
import { activate } from "../../plugin/index";
import type { OpenClawPluginApi, OpenClawRuntime } from "./openclaw-api";
import { openClawSnapshot, PLUGIN_ID, section, SECTION_KEY } from "./config-snapshot";
import { createOpenClawHostRuntime } from "./host-runtime";
import { openClawLogger } from "./host-logger";
import { configuredPathCollision, hooksPathCollision, openClawRoute } from "./http-route";
import { bridgeServices } from "./services";
import { createServiceScope } from "./service-scope";
import { addToOpenClawCli, OPENCLAW_CLI_DESCRIPTOR } from "./cli";
import { openToOthersWarning } from "../../host-contract/private-fs";
import { openClawPresetPlugins } from "./preset-plugins";
import { openClawConfigFile, openClawSectionStore } from "./section-store";
import type { OperatorRouteRegistration } from "../../host-contract/operator-route";
import { INSPECTOR_PATH, operatorSurfaceRoutes } from "./operator-surface";
import { createPrometheusMetrics } from "../../host-contract/prometheus-metrics";
import { gatewayCallCommand, registerGatewayMethods } from "./gateway-methods";
import { clientAddressResolver } from "../../host-contract/client-address";
import { loadDetachedWork, type DetachedWork } from "./detached-work";

export const id = PLUGIN_ID;
export const name = "Inbound Webhooks";
export const description =
  "Signed, durable, idempotent inbound webhooks: wake the assistant, run isolated agent turns, route any sender through mappings and presets.";

/** What the pinned OpenClaw does not offer a plugin, said once when the plugin starts (docs/openclaw.md). */
export const NOT_AVAILABLE_IN_OPENCLAW = [
  "`thinking` on a run (OpenClaw's subagent runtime takes none: runs use the agent's configured thinking level)",
  "cancelling a run (a run the plugin stopped waiting for ends under OpenClaw's agents.defaults.timeoutSeconds)",
];

/** Said once when this OpenClaw offers no `runDetachedWebhookWork` (docs/openclaw.md "Stopping with runs in flight"). */
export const DETACHED_WORK_MISSING =
  "this OpenClaw offers no runDetachedWebhookWork (openclaw/plugin-sdk/webhook-request-guards): runs start untracked, and a stop with a run in flight may wait for OpenClaw's whole drain budget";

/** Said at start when OpenClaw blocks the plugin's llm_input hook (docs/openclaw.md "Wakes across stops and restarts"). */
export const CONVERSATION_ACCESS_MISSING =
  "plugins.entries.inbound-webhooks.hooks.allowConversationAccess is not true: OpenClaw blocks the llm_input hook that shows the plugin a kept wake reached the model, so wakes still kept are handed to OpenClaw again at every start (set it to true)";

/**
 * `api.runtime`, read on use: OpenClaw refuses any access to it while it only
 * collects registrations (the `cli-metadata` mode of `openclaw inbound-webhooks …`),
 * and the plugin touches the runtime only when it serves or runs.
 */
function lazyRuntime(api: OpenClawPluginApi): OpenClawRuntime {
  return new Proxy({} as OpenClawRuntime, { get: (_target, prop) => Reflect.get(api.runtime, prop) as unknown });
}

/** OpenClaw's state dir: its runtime's answer (when it may be asked), else OPENCLAW_STATE_DIR, else ~/.openclaw. */
function openClawStateDir(api: OpenClawPluginApi): string {
  try {
    const resolved = api.runtime?.state?.resolveStateDir?.(process.env);
    if (typeof resolved === "string" && resolved !== "") return resolved;
  } catch {
    // cli-metadata registration: no runtime; the environment's answer is OpenClaw's own rule.
  }
  return process.env.OPENCLAW_STATE_DIR || path.join(os.homedir(), ".openclaw");
}

/** Follows OpenClaw's lifecycle hooks as the contract's host events. */
function followLifecycle(api: OpenClawPluginApi, events: EventEmitter<HostEvents>): void {
  if (typeof api.on !== "function") return;
  const key = (e: Record<string, unknown>, ctx?: Record<string, unknown>): string => String(e.sessionKey ?? ctx?.sessionKey ?? "");
  api.on("gateway_start", () => void events.emit("gateway", { phase: "starting" }));
  api.on("gateway_stop", () => void events.emit("gateway", { phase: "stopping" }));
  api.on("session_start", (e, ctx) => void events.emit("session", { phase: "created", sessionKey: key(e, ctx) }));
  api.on("session_end", (e, ctx) => void events.emit("session", { phase: "ended", sessionKey: key(e, ctx) }));
  // The provider input of every turn (observe-only): the wakes the plugin keeps are forgotten once a turn's prompt carried them.
  api.on("llm_input", (e, ctx) => {
    const input = [e.prompt, e.systemPrompt].filter((t): t is string => typeof t === "string").join("\n");
    if (input !== "") events.emit("turn", { sessionKey: key(e, ctx), input });
  });
}

export function register(api: OpenClawPluginApi): void {
  const entry = section(section(section(api.config.plugins).entries)[PLUGIN_ID]);
  const stateRoot = openClawStateDir(api);
  const configDir = process.env.OPENCLAW_CONFIG_PATH ? path.dirname(path.resolve(process.env.OPENCLAW_CONFIG_PATH)) : stateRoot;
  const runtime = lazyRuntime(api);
  const logger = openClawLogger(api.logger, () => runtime.logging?.shouldLogVerbose?.() ?? true);
  const events = new EventEmitter<HostEvents>();
  const routes: HttpRouteRegistration[] = [];
  const services: ServiceRegistration[] = [];
  const clis: CliRegistrar[] = [];
  const operatorRoutes: OperatorRouteRegistration[] = [];
  // The plugin's instruments, served at /inbound-webhooks/metrics: only for the running gateway (a CLI's registration serves nothing).
  const serving = api.registrationMode === undefined || api.registrationMode === "full";
  const instruments = serving ? createPrometheusMetrics({ logger }) : undefined;
  // Preset plugins installed into OpenClaw (read from their manifests, never run), as the embedded gateway hands them over.
  const found = openClawPresetPlugins(api.config, stateRoot, configDir);
  const presets: HookPresetContribution[] = [...found.presets];
  const scope = createServiceScope();
  // Looked up when the first run starts (never while OpenClaw only collects registrations), said once when missing.
  let detached: Promise<DetachedWork | undefined> | undefined;
  const detachedWork = () =>
    (detached ??= loadDetachedWork().then((found) => {
      if (!found) logger.warn(DETACHED_WORK_MISSING);
      return found;
    }));
  const hostApi: PluginApi = {
    pluginId: PLUGIN_ID,
    config: openClawSnapshot(api.config, api.pluginConfig),
    // The plugin names its keys where OpenClaw keeps them, in every sentence (answers, logs, stored runs, start errors).
    configSection: SECTION_KEY,
    configDir,
    configPath: openClawConfigFile(stateRoot),
    sectionStore: openClawSectionStore({ config: api.config, pluginConfig: api.pluginConfig, runtime, configFile: openClawConfigFile(stateRoot) }),
    stateDir: path.join(stateRoot, PLUGIN_ID),
    logger,
    events,
    runtime: createOpenClawHostRuntime({ runtime, config: api.config, entry, scope, detachedWork }),
    hostApiVersion: HOST_API_VERSION,
    ...(instruments ? { metrics: instruments.forPlugin(PLUGIN_ID) } : {}),
    registerHttpRoute: (route) => void routes.push(route),
    // Only for the running gateway: a CLI's registration serves no operator route, and building the inspector's
    // pages would load Express (its lazy file) at every `openclaw inbound-webhooks …` command (docs/openclaw.md "CLI time").
    ...(serving ? { registerOperatorRoute: (route: OperatorRouteRegistration) => void operatorRoutes.push(route) } : {}),
    registerService: (service) => void services.push(service),
    registerCli: (registrar) => void clis.push(registrar),
    registerPresetProvider: (preset) => void presets.push({ ...preset, pluginId: PLUGIN_ID }),
    listPresets: () => [...presets],
  };
  for (const problem of found.problems) logger.warn(problem);
  try {
    activate(hostApi);
  } catch (e) {
    const error = e instanceof Error ? e : new Error(String(e));
    const collision = configuredPathCollision(section(hostApi.config.hooks), api.config);
    if (collision !== undefined && !error.message.includes(collision)) error.message = `${error.message}\n${collision}`;
    throw error;
  }
  const collisions = routes.flatMap((route) => hooksPathCollision(route.prefix, api.config) ?? []);
  if (collisions.length > 0) throw Object.assign(new Error(collisions.join("\n")), { name: "ConfigError" });
  for (const route of routes) api.registerHttpRoute(openClawRoute(route, api.config));
  if (instruments) registerOperatorSurface(api, operatorRoutes, instruments, logger);
  if (clis.length > 0) {
    api.registerCli(({ program }) => addToOpenClawCli(program, clis), { descriptors: [OPENCLAW_CLI_DESCRIPTOR] });
  }
  followLifecycle(api, events);
  if (services.length > 0) {
    api.registerService(
      bridgeServices({
        id: PLUGIN_ID,
        services,
        stateDir: hostApi.stateDir,
        scope,
        onStart: () => {
          logger.info(`inside OpenClaw ${api.runtime?.version ?? ""}: not available here: ${NOT_AVAILABLE_IN_OPENCLAW.join("; ")}`.replace("  ", " "));
          // Our own data dir only: OpenClaw's state dir is OpenClaw's to secure (docs/security.md).
          if (section(entry.hooks).allowConversationAccess !== true) logger.warn(CONVERSATION_ACCESS_MISSING);
          const open = openToOthersWarning(hostApi.stateDir, "plugin data dir");
          if (open) logger.warn(open);
        },
      }),
    );
  }
}

/**
 * `/inbound-webhooks` under OpenClaw's gateway auth (operator-surface.ts: metrics, status, the inspector's pages)
 * and the Control UI's "Webhooks" tab, whose frame is the inspector (`operator.read` sees it).
 */
function registerOperatorSurface(
  api: OpenClawPluginApi,
  operatorRoutes: readonly OperatorRouteRegistration[],
  registry: Parameters<typeof operatorSurfaceRoutes>[0]["registry"],
  logger: PluginApi["logger"],
): void {
  const trusted = section(api.config.gateway).trustedProxies;
  const clientAddress = clientAddressResolver(Array.isArray(trusted) ? trusted.filter((p): p is string => typeof p === "string") : []);
  // Replay (the routes' methods) as gateway methods with operator.write: the read-only frame offers their `openclaw gateway call` command.
  const methods = registerGatewayMethods(api, operatorRoutes, logger);
  const surface = operatorSurfaceRoutes({ routes: operatorRoutes, registry, clientAddress, logger, ...(methods ? { methodCommand: gatewayCallCommand } : {}) });
  for (const route of surface) api.registerHttpRoute(route);
  if (!operatorRoutes.some((r) => r.path === "/ui")) return;
  api.session?.controls?.registerControlUiDescriptor?.({
    surface: "tab",
    id: "webhooks",
    label: "Webhooks",
    description: "Inbound webhook deliveries, runs and mappings.",
    // Not "webhooks": the hooks' own route (/webhooks by default) would shadow that address, and OpenClaw then drops the slug.
    slug: "webhooks-inspector",
    icon: "webhook",
    group: "control",
    path: INSPECTOR_PATH,
    requiredScopes: ["operator.read"],
  });
}

/** The definition object OpenClaw loads (`{ id, name, description, register }`). */
const plugin = { id, name, description, register };
export default plugin;
