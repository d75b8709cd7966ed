/**
 * A test double of the host contract. Records every effect so tests can assert
 * on them, and lets a test script the agent runner.
 */
import { until } from "./until";
import { EventEmitter } from "eventemitter3";
import type {
  AllowedModel,
  CliRegistrar,
  DeliverRequest,
  HookPresetContribution,
  HostEvents,
  HostLogger,
  KnownAgents,
  LastRoute,
  PluginApi,
  RunTurnRequest,
  RunTurnResult,
  ServiceRegistration,
  SystemEventMeta,
} from "../../src/host-contract/host-api";
import type { HttpRouteRegistration } from "../../src/host-contract/http-route";
import { HOST_API_VERSION } from "../../src/host-contract/host-api";
import type { OperatorRouteRegistration } from "../../src/host-contract/operator-route";
import type { HookInspector } from "../../src/core/inspection";

export const BUILTIN_CHANNELS = ["phone_chat", "bot_chat", "community_chat", "workspace_chat", "privacy_chat", "device_chat", "enterprise_chat"];

export interface LogLine {
  level: "debug" | "info" | "warn" | "error";
  message: string;
  meta?: Record<string, unknown>;
}

export interface FakeHostOptions {
  config?: Record<string, unknown>;
  configDir?: string;
  /** Where the host keeps the plugin's section (host API 1.4 `configSection`); default none (`hooks`). */
  configSection?: string;
  stateDir?: string;
  /** Scripted runner; default echoes `echo: <message>` immediately. */
  runTurn?: (req: RunTurnRequest, host: FakeHost) => Promise<RunTurnResult>;
  channels?: string[];
  lastRoute?: LastRoute;
  models?: AllowedModel[];
  presets?: HookPresetContribution[];
  deliver?: (req: DeliverRequest) => Promise<void>;
  /** The host's metrics port (host API 1.3), e.g. a real gateway registry's `forPlugin(id)`; default none. */
  metrics?: PluginApi["metrics"];
  /** `agents.known()` (host API 1.5); default none (one agent, main). */
  agents?: KnownAgents;
  /** `agents.thinkingNotApplied` (host API 1.5); default none (turns apply thinking). */
  thinkingNotApplied?: string;
}

export interface FakeHost {
  api: PluginApi;
  events: EventEmitter<HostEvents>;
  systemEvents: Array<{ sessionKey: string; text: string; meta?: SystemEventMeta }>;
  heartbeats: Array<{ reason: string }>;
  turns: RunTurnRequest[];
  deliveries: DeliverRequest[];
  logs: LogLine[];
  routes: HttpRouteRegistration[];
  services: ServiceRegistration[];
  clis: CliRegistrar[];
  /** The inspector of the activation (startPluginApp puts it here: what the inspector's pages read). */
  inspectors: HookInspector[];
  /** What the plugin registered with `registerOperatorRoute` (host API 2.1). */
  operatorRoutes: OperatorRouteRegistration[];
  channels: string[];
  lastRoute?: LastRoute;
  /** Conversation history per session key (user/assistant pairs), as a real host keeps it. */
  history: Map<string, Array<{ role: "user" | "assistant"; content: string }>>;
  /** Resolves when `n` system events have been recorded (bounded wait). */
  waitForSystemEvents(n: number, timeoutMs?: number): Promise<void>;
  waitFor(pred: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
  startServices(): Promise<void>;
  stopServices(): Promise<void>;
}

export function createFakeHost(opts: FakeHostOptions = {}): FakeHost {
  const events = new EventEmitter<HostEvents>();
  const host: FakeHost = {
    api: undefined as unknown as PluginApi,
    events,
    systemEvents: [],
    heartbeats: [],
    turns: [],
    deliveries: [],
    logs: [],
    routes: [],
    services: [],
    clis: [],
    inspectors: [],
    operatorRoutes: [],
    channels: opts.channels ?? [...BUILTIN_CHANNELS],
    lastRoute: opts.lastRoute,
    history: new Map(),
    async waitForSystemEvents(n, timeoutMs = 5000) {
      await host.waitFor(() => host.systemEvents.length >= n, timeoutMs, `${n} system events`);
    },
    async waitFor(pred, timeoutMs = 5000, what = "condition") {
      await until(pred, what, { timeoutMs, intervalMs: 5 });
    },
    async startServices() {
      for (const s of host.services) await s.start();
      // Like a host of contract 1.2+: ready() once every service started.
      for (const s of host.services) await s.ready?.();
    },
    async stopServices() {
      for (const s of [...host.services].reverse()) await s.stop();
    },
  };
  const presets: HookPresetContribution[] = [...(opts.presets ?? [])];
  const log = (level: LogLine["level"]) => (message: string, meta?: Record<string, unknown>) => {
    host.logs.push({ level, message, meta });
  };
  const logger: HostLogger = { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
  const models = opts.models ?? [];
  const defaultRunTurn = async (req: RunTurnRequest): Promise<RunTurnResult> => ({ status: "ok", reply: `echo: ${req.message}` });
  const runTurn = opts.runTurn ?? defaultRunTurn;

  host.api = {
    pluginId: "inbound-webhooks",
    config: opts.config ?? {},
    configDir: opts.configDir ?? process.cwd(),
    ...(opts.configSection ? { configSection: opts.configSection } : {}),
    stateDir: opts.stateDir ?? process.cwd(),
    logger,
    events,
    hostApiVersion: HOST_API_VERSION,
    ...(opts.metrics ? { metrics: opts.metrics } : {}),
    registerOperatorRoute(route) {
      host.operatorRoutes.push(route);
    },
    runtime: {
      sessions: {
        mainKey: "main",
        enqueueSystemEvent(sessionKey, text, meta) {
          // Honours dedupeKey like the embedded gateway: a re-send is dropped.
          if (typeof meta?.dedupeKey === "string" && host.systemEvents.some((e) => e.sessionKey === sessionKey && e.meta?.dedupeKey === meta.dedupeKey)) return;
          host.systemEvents.push({ sessionKey, text, meta });
        },
      },
      heartbeat: {
        requestNow({ reason }) {
          host.heartbeats.push({ reason });
        },
      },
      agents: {
        async runTurn(req) {
          host.turns.push(req);
          const hist = host.history.get(req.sessionKey) ?? [];
          const res = await runTurn(req, host);
          hist.push({ role: "user", content: req.message });
          if (res.status === "ok" && res.reply !== undefined) hist.push({ role: "assistant", content: res.reply });
          host.history.set(req.sessionKey, hist);
          return res;
        },
        ...(opts.agents ? { known: () => opts.agents! } : {}),
        ...(opts.thinkingNotApplied !== undefined ? { thinkingNotApplied: opts.thinkingNotApplied } : {}),
      },
      channels: {
        list: () => [...host.channels],
        resolveLast: () => host.lastRoute,
        async deliver(req) {
          if (opts.deliver) await opts.deliver(req);
          host.deliveries.push(req);
          host.lastRoute = { channel: req.channel, to: req.to };
        },
      },
      models: {
        resolve: (refOrAlias) => models.find((m) => m.alias === refOrAlias)?.ref ?? refOrAlias,
        allowList: () => [...models],
      },
    },
    registerHttpRoute: (r) => void host.routes.push(r),
    registerService: (s) => void host.services.push(s),
    registerCli: (c) => void host.clis.push(c),
    registerPresetProvider: (p) => void presets.push(p),
    listPresets: () => [...presets],
  };
  return host;
}
