/**
 * The host contract: the only place where shapes of the plugin host appear.
 *
 * The plugin depends on these types and nothing else of its host. The embedded
 * gateway (`src/gateway/`) implements them; any other host that implements them
 * can run the plugin. Plugin code must never import the embedded gateway (a test
 * enforces it).
 *
 * Versioning: `HOST_API_VERSION` follows semver (docs/host-contract.md): a member
 * added raises the minor version, a breaking change the major. `plugin.json#hostApi`
 * declares the range a plugin needs; the host refuses to activate a plugin whose
 * range it does not satisfy.
 */
import type { EventEmitter } from "eventemitter3";
import type { RequestHandler, Router } from "express";
import type { Command } from "commander";
import type { HookInspector } from "./inspection";
import type { HostMetrics } from "./metrics";

export const HOST_API_VERSION = "1.4.0";

/** Levels of reasoning effort a run can ask for (the request field, mapping and `hooks.mail` key `thinking`). */
export const THINKING_LEVELS = ["off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];

/** Structured logger handed to each plugin. Meta must never carry secrets or raw payloads. */
export interface HostLogger {
  debug(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  error(message: string, meta?: Record<string, unknown>): void;
  /**
   * False when lines of `level` are discarded, so a plugin can skip building them
   * (e.g. per-request debug lines). Optional (additive in host API 1.3): absent
   * means every level is kept.
   */
  isLevelEnabled?(level: "debug" | "info" | "warn" | "error"): boolean;
}

/** Metadata attached to a system event (where it came from). */
export interface SystemEventMeta {
  /** e.g. "hook:wake", "hook:agent", "hook:mapping:<id>" */
  source?: string;
  /**
   * Makes the event idempotent: a host enqueues at most one event per dedupeKey and
   * session (the embedded gateway remembers the keys of pending events and of the
   * last 1000 consumed ones), so a sender that re-posts after a crash does not
   * duplicate it. Hosts that ignore it stay correct, only without that guarantee.
   */
  dedupeKey?: string;
  [key: string]: unknown;
}

/** The longest bound of one agent run in seconds (24 h): the limit of `agents.defaults.timeoutSeconds` and a request's `timeoutSeconds`; a host allowing more (or none: OpenClaw's 0) gives this. */
export const MAX_RUN_TIMEOUT_SECONDS = 86_400;

/** `runtime.models.policy()`: see there. */
export interface ModelPolicy {
  /** The config key(s) a user changes to allow another model, e.g. `agents.defaults.models`. */
  source: string;
  /** True when an empty allow-list refuses every named model. */
  enforcedWhenEmpty: boolean;
}

export interface RunTurnRequest {
  sessionKey: string;
  message: string;
  /** Resolved model ref (`provider/model`); absent → host default. */
  model?: string;
  thinking?: ThinkingLevel;
  timeoutMs: number;
  /** Aborted when the run times out or is cancelled; runners must honour it. */
  signal: AbortSignal;
  /** The plugin's id of the run, the same at every start of it (added in 1.4; hosts may ignore it). */
  runId?: string;
}

export interface RunTurnResult {
  status: "ok" | "error" | "timeout";
  reply?: string;
  error?: string;
}

/** Where the last delivery of a session went. */
export interface LastRoute {
  channel: string;
  to?: string;
}

export interface DeliverRequest {
  channel: string;
  to?: string;
  text: string;
}

/** One entry of the model allow-list (`agents.defaults.models`). */
export interface AllowedModel {
  ref: string;
  alias?: string;
}

/**
 * What a host throws (or rejects with) when it refuses work because a bounded
 * queue is full — e.g. `enqueueSystemEvent` on a main session that already holds
 * `session.main.maxPending` events. The work did not happen; a plugin answers its
 * sender 503 `overloaded` with `Retry-After: retryAfterSeconds`. An additive part of
 * the contract: hosts need not refuse, and to a plugin that does not know the
 * shape it is an ordinary Error.
 */
export interface HostOverloadedError extends Error {
  code: "overloaded";
  /** When a retry may succeed, in seconds (≥ 1). */
  retryAfterSeconds: number;
}

/** Creates a HostOverloadedError (for hosts). */
export function hostOverloadedError(message: string, retryAfterSeconds: number): HostOverloadedError {
  return Object.assign(new Error(message), { name: "HostOverloadedError", code: "overloaded" as const, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)) });
}

/** True for an error with the HostOverloadedError shape (for plugins; checks the shape, not the class). */
export function isHostOverloadedError(e: unknown): e is HostOverloadedError {
  return e instanceof Error && (e as Partial<HostOverloadedError>).code === "overloaded" && typeof (e as Partial<HostOverloadedError>).retryAfterSeconds === "number";
}

export interface HostRuntime {
  sessions: {
    /** Key of the main session ("main" in the embedded gateway). */
    readonly mainKey: string;
    /**
     * Appends a system event to the session's queue; persisted before it resolves.
     * Throws (or rejects with) a HostOverloadedError when the host's queue is full.
     */
    enqueueSystemEvent(sessionKey: string, text: string, meta?: SystemEventMeta): void | Promise<void>;
  };
  heartbeat: {
    /** Asks for a heartbeat as soon as possible; calls close together are coalesced by the host. */
    requestNow(opts: { reason: string }): void;
  };
  agents: {
    /** Runs one agent turn. Reusing a session key continues that session's conversation. */
    runTurn(req: RunTurnRequest): Promise<RunTurnResult>;
    /** Optional (1.4): the turn of `runId` outlived a restart of the plugin's services in this process; runTurn joins it (docs/host-contract.md). */
    stillRunning?(runId: string): boolean;
  };
  channels: {
    /** Channel ids the host offers right now (built-in and plugin-provided). */
    list(): string[];
    /** The channel + recipient of the session's last delivery, if any. */
    resolveLast(sessionKey: string): LastRoute | undefined;
    /** Delivers text; rejects with an Error when delivery fails. */
    deliver(req: DeliverRequest): Promise<void>;
  };
  models: {
    /** Resolves an alias to its ref; a ref (or unknown string) is returned unchanged. */
    resolve(refOrAlias: string): string;
    /** The allow-list; empty means "not enforced" (unless `policy().enforcedWhenEmpty`). */
    allowList(): AllowedModel[];
    /**
     * Optional (added in host API 1.4): where the allow-list comes from, for a refusal's sentence (default
     * `agents.defaults.models`), and whether an empty list means "no model may be named"
     * (a host that admits no override at all). Absent: the embedded gateway's rule.
     */
    policy?(): ModelPolicy;
  };
}

/** Host events a plugin may subscribe to. */
export interface HostEvents {
  heartbeat: (e: { phase: "started" | "finished"; reason: string }) => void;
  session: (e: { phase: "created" | "reset" | "ended"; sessionKey: string }) => void;
  gateway: (e: { phase: "starting" | "stopping" }) => void;
}

export interface HttpRouteRegistration {
  /** Normalised path prefix, e.g. "/hooks". Must not collide with other routes. */
  prefix: string;
  /** Mounted under `prefix`: sees `req.url` relative to it. */
  handler: Router | RequestHandler;
}

export interface ServiceRegistration {
  id: string;
  /**
   * Called before the host listens, in registration order. Open and check state here
   * (a failure stops the start); do nothing that must not happen if the start fails.
   */
  start(): void | Promise<void>;
  /**
   * Added in host API 1.2 (optional): called once the start can no longer fail —
   * every service started and the host listens — in registration order. Work with
   * effects on accepted state (resuming queued work, marking interrupted work)
   * belongs here, so that a failed start has none. A host older than 1.2 never
   * calls it: check `api.hostApiVersion` and do that work in `start()` there.
   */
  ready?(): void | Promise<void>;
  /** Called on shutdown in reverse registration order. */
  stop(): void | Promise<void>;
}

/** Receives the host's commander program to add commands to. */
export type CliRegistrar = (program: Command) => void;

/** One mapping as a preset declares it (same shape as an entry of `hooks.mappings`). */
export type PresetMapping = Record<string, unknown>;

/** A named bundle of mappings contributed by a plugin (declared in its plugin.json or registered). */
export interface HookPresetContribution {
  name: string;
  description?: string;
  /** Id of the contributing plugin. */
  pluginId: string;
  mappings: PresetMapping[];
  /** Absolute directory that transform modules of these mappings resolve against. */
  transformsDir?: string;
}

export interface PluginApi {
  /** Manifest id of the plugin being activated. */
  readonly pluginId: string;
  /** Whole gateway config snapshot (as loaded; secrets references unresolved). */
  readonly config: Readonly<Record<string, unknown>>;
  /** Directory of the config file; relative paths in config resolve against it. */
  readonly configDir: string;
  /** (1.4, optional) Where the host keeps the plugin's section, a dotted path (OpenClaw: `plugins.entries.inbound-webhooks.config`): the plugin names its keys so in every sentence (config-keys.ts); absent: `hooks`. */
  readonly configSection?: string;
  /** Absolute path of the config file, when there is one (undefined for the demo default). */
  readonly configPath?: string;
  /** This plugin's own writable state directory (created by the host). */
  readonly stateDir: string;
  readonly logger: HostLogger;
  readonly events: EventEmitter<HostEvents>;
  readonly runtime: HostRuntime;
  /** Versions of the host contract the host implements. */
  readonly hostApiVersion: string;
  /** Instruments the host exposes (added in host API 1.3; optional — a plugin on a host without it records nothing). See metrics.ts. */
  readonly metrics?: HostMetrics;
  /** (1.4, optional) Where the host's gateway for this config runs now, `http://host:port` (its actual port: `--port` may differ from the config's); undefined when none runs. */
  runningGatewayUrl?(): string | undefined;
  registerHttpRoute(route: HttpRouteRegistration): void;
  registerService(service: ServiceRegistration): void;
  registerCli(registrar: CliRegistrar): void;
  /** Programmatic preset registration (for plugins that compute presets). */
  registerPresetProvider(preset: HookPresetContribution): void;
  /** Presets contributed by enabled plugins (manifest-declared and registered so far). */
  listPresets(): HookPresetContribution[];
  /**
   * Offers a delivery channel (added in host API 1.1; optional so hosts and test
   * doubles of 1.0 need not provide it — call it as `api.registerChannel?.(…)`
   * or require `"hostApi": "^1.1.0"`).
   */
  registerChannel?(channel: ChannelRegistration): void;
  /**
   * Offers the plugin's delivery ledger, runs and mappings to the host's operator
   * surfaces (added in host API 1.3; optional — call it as `api.registerInspector?.(…)`).
   * At most one inspector per plugin.
   */
  registerInspector?(inspector: HookInspector): void;
}

/**
 * A delivery channel offered by a channel plugin (host API 1.1). Once registered,
 * its id appears in `runtime.channels.list()` and `runtime.channels.deliver()`
 * with that channel calls `deliver`; a rejection is a failed delivery.
 */
export interface ChannelRegistration {
  /** Lowercase letters, digits, underscores; must not be a built-in channel. */
  id: string;
  deliver(req: DeliverRequest): void | Promise<void>;
}

/** What a host hands `PluginModule.configProblems`: the config as `PluginApi` has it, and the presets known without activating any plugin. */
export interface ConfigCheckInput {
  readonly config: Readonly<Record<string, unknown>>;
  readonly configDir: string;
  /** Presets declared by the enabled plugins' manifests. */
  readonly presets: readonly HookPresetContribution[];
  /**
   * False when another enabled plugin might register presets in code once activated
   * (`registerPresetProvider`): a name missing from `presets` is then not a problem yet.
   */
  readonly presetsComplete: boolean;
}

/** What a plugin's entry module exports. */
export interface PluginModule {
  /** Synchronous: validates config and registers. Throws an Error with a clear message on bad config. */
  activate(api: PluginApi): void;
  deactivate?(): void | Promise<void>;
  /**
   * Optional (added in host API 1.4), pure (no registration, no state, no I/O beyond reading config files): every problem
   * `activate` would report for this config, one `<key> <rule>` line each — also while the host's
   * schema check of the plugin's section failed, when the host does not activate it: the problems
   * of the parts that passed, so one start lists them all. A problem the schema check names is
   * listed in the same words (the host drops repeats); none is a mere consequence of one.
   */
  configProblems?(input: ConfigCheckInput): string[];
}
