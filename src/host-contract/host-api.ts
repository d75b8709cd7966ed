/**
 * The host contract: the only place where shapes of the plugin host appear.
 *
 * The plugin depends on these types and nothing else of its host. The embedded gateway
 * (`src/gateway/`) implements them; any other host that implements them can run the
 * plugin. Plugin code must never import the embedded gateway (a test enforces it).
 *
 * Versioning: `HOST_API_VERSION` follows semver (docs/host-contract.md): a member added
 * raises the minor version, a breaking change the major. `plugin.json#hostApi` declares
 * the range a plugin needs; the host refuses a plugin whose range it does not satisfy.
 */
import type { EventEmitter } from "eventemitter3";
import type { Command } from "commander";
import type { HostMetrics } from "./metrics";
import type { HttpRouteRegistration } from "./http-route";
import type { OperatorRouteRegistration } from "./operator-route";
import type { SectionStore } from "./section-store";
import type { HookRole } from "./hook-role";

export const HOST_API_VERSION = "2.2.0";

export { THINKING_LEVELS, type ThinkingLevel, type KnownAgents, type RunTurnRequest, type RunTurnResult } from "./agent-turn";
import type { KnownAgents, RunTurnRequest, RunTurnResult } from "./agent-turn";

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

/** The agents of a host without `agents.known()` (the embedded gateway's one agent). */
export const DEFAULT_AGENTS: KnownAgents = { ids: ["main"], defaultId: "main" };

/** The longest bound of one agent run in seconds (24 h): the limit of `agents.defaults.timeoutSeconds` and a request's `timeoutSeconds`; a host allowing more (or none: OpenClaw's 0) gives this. */
export const MAX_RUN_TIMEOUT_SECONDS = 86_400;

/** `runtime.models.policy()`: see there. */
export interface ModelPolicy {
  /** The config key(s) a user changes to allow another model, e.g. `agents.defaults.models`. */
  source: string;
  /** True when an empty allow-list refuses every named model. */
  enforcedWhenEmpty: boolean;
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

export interface HostRuntime {
  sessions: {
    /** Key of the main session ("main" in the embedded gateway). */
    readonly mainKey: string;
    /**
     * (2.0, optional) True when the host keeps pending system events in memory only (OpenClaw): the plugin keeps
     * each wake in its own store from before its 2xx until the host reports the turn that took it (the `turn`
     * event), and hands those still kept to the host again at every start. Absent: the host persists them.
     */
    readonly eventsInMemory?: boolean;
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
    /** Optional (1.5): the agents a run may name. Absent: one agent, `main` (DEFAULT_AGENTS). */
    known?(): KnownAgents;
    /**
     * Optional (1.5): set when the host's turns take no thinking level, saying why (a clause, e.g. "OpenClaw's
     * subagent runtime takes none"); a run asking for one is accepted and its 202 says it was not applied.
     */
    readonly thinkingNotApplied?: string;
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
  /**
   * (2.0) A turn's input as the host sends it to the model (its prompt, the session's system events in it), from
   * hosts with `sessions.eventsInMemory`: the plugin forgets the kept events it finds there. Never logged.
   */
  turn: (e: { sessionKey: string; input: string }) => void;
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
  /**
   * (1.5, optional) The host's own way to change the plugin's section of its config (OpenClaw: its config
   * writer, `runtime.config.mutateConfigFile`), for the commands that write settings (`mail setup`). Absent:
   * they edit the config file at `configPath` themselves (the embedded gateway).
   */
  readonly sectionStore?: SectionStore;
  /** This plugin's own writable state directory (created by the host). */
  readonly stateDir: string;
  readonly logger: HostLogger;
  readonly events: EventEmitter<HostEvents>;
  readonly runtime: HostRuntime;
  /** Versions of the host contract the host implements. */
  readonly hostApiVersion: string;
  /** (2.2, optional) The role the host runs the plugin in; absent: `"consumer"`. */
  readonly role?: HookRole;
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
   * (2.1, optional: call it as `api.registerOperatorRoute?.(…)`) A route for the gateway's operator, behind the
   * operator authentication the host provides (operator-route.ts): the embedded gateway mounts it at its `path`
   * with its operator token and login; OpenClaw below `/inbound-webhooks` with `auth: "gateway"`. At most one per path.
   * (It replaces 1.3's `registerInspector`: the inspector is the plugin's own route, no longer a shape the host reads.)
   */
  registerOperatorRoute?(route: OperatorRouteRegistration): void;
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
