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
 * - runtime → host-runtime.ts.
 */
import os from "node:os";
import path from "node:path";
import { EventEmitter } from "eventemitter3";
import { HOST_API_VERSION, type CliRegistrar, type HookPresetContribution, type HostEvents, type HttpRouteRegistration, type PluginApi, type ServiceRegistration } from "../../host-contract/host-api";
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

export const id = PLUGIN_ID;
export const name = "Inbound Webhooks";
export const description = "Signed, durable, idempotent inbound webhooks: wake the assistant, run isolated agent turns, route any sender through mappings and presets.";

/** What the pinned OpenClaw does not offer a plugin, said once when the plugin starts (docs/openclaw.md). */
export const NOT_AVAILABLE_IN_OPENCLAW = [
  "`thinking` on a run (OpenClaw's subagent runtime takes none: runs use the agent's configured thinking level)",
  "cancelling a run (a run the plugin stopped waiting for ends under OpenClaw's agents.defaults.timeoutSeconds)",
  "persisted main-session events (OpenClaw keeps pending system events in memory until the next heartbeat)",
  "the dashboard and /metrics (they are the embedded gateway's; use `openclaw inbound-webhooks deliveries|runs …` and the hooks API)",
  "`mail setup` (it writes the embedded gateway's config file: write plugins.entries.inbound-webhooks.config.mail by hand)",
  "preset plugins (presets contributed by other plugins)",
];

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
  const presets: HookPresetContribution[] = [];
  const scope = createServiceScope();
  const hostApi: PluginApi = {
    pluginId: PLUGIN_ID,
    config: openClawSnapshot(api.config, api.pluginConfig),
    // The plugin names its keys where OpenClaw keeps them, in every sentence (answers, logs, stored runs, start errors).
    configSection: SECTION_KEY,
    configDir,
    stateDir: path.join(stateRoot, PLUGIN_ID),
    logger,
    events,
    runtime: createOpenClawHostRuntime({ runtime, config: api.config, entry, scope }),
    hostApiVersion: HOST_API_VERSION,
    registerHttpRoute: (route) => void routes.push(route),
    registerService: (service) => void services.push(service),
    registerCli: (registrar) => void clis.push(registrar),
    registerPresetProvider: (preset) => void presets.push({ ...preset, pluginId: PLUGIN_ID }),
    listPresets: () => [...presets],
  };
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
          const open = openToOthersWarning(hostApi.stateDir, "plugin data dir");
          if (open) logger.warn(open);
        },
      }),
    );
  }
}

/** The definition object OpenClaw loads (`{ id, name, description, register }`). */
const plugin = { id, name, description, register };
export default plugin;
