/**
 * The gateway's resolved configuration: parsed once from the raw config snapshot
 * (file or demo default), defaults applied, paths absolute.
 */
import type { AllowedModel, LastRoute } from "../../host-contract/host-api";
import type { HookRole } from "../../host-contract/hook-role";
import { DEFAULT_GATEWAY_BIND, DEFAULT_GATEWAY_PORT } from "../../host-contract/gateway-address";

export type RunnerConfig = { kind: "echo"; delayMs: number } | { kind: "openai"; baseUrl: string; apiKeyEnv?: string; model?: string };

/** A secret as configured: plain text, `{ env }` or `{ file }` (relative to the config file). */
export type GatewaySecret = string | { env: string } | { file: string };

export type LogLevel = "debug" | "info" | "warn" | "error";

/** `pretty`: aligned, coloured lines for a terminal; `json`: one object per line. */
export type LogFormat = "pretty" | "json";
/**
 * What an accepted hook survives (docs/reliability.md): "process" — a crash or `kill -9`
 * of the gateway (plain writes, no fsync per request); "os" — also an OS crash or power
 * loss (one `fdatasync` per group commit of the line files).
 */
export type Durability = "process" | "os";

export interface GatewayConfig {
  /** The whole config as loaded (handed to plugins as `api.config`). */
  raw: Record<string, unknown>;
  /** Absolute path of the config file; undefined for the demo default. */
  configPath?: string;
  /** Directory relative paths resolve against. */
  configDir: string;
  /** True when no config file was found and the demo default is used. */
  demo: boolean;
  bind: string;
  port: number;
  stateDir: string;
  /** `gateway.auth.token` as configured (read at start by resolveGatewayAuthToken; never log). */
  authTokenSource?: GatewaySecret;
  logLevel: LogLevel;
  /** `gateway.logFormat`; undefined: pretty when the log stream is a terminal, else json. */
  logFormat?: LogFormat;
  /** `gateway.trustProxy`: proxies whose X-Forwarded-For is believed; empty = none (the default). */
  trustProxy: string[];
  /**
   * `gateway.ui.allowedHosts`: host names the dashboard and `/api` answer besides the loopback ones
   * (src/gateway/http/dashboard-hosts.ts); undefined when unset (a non-loopback bind then checks no Host).
   */
  uiAllowedHosts?: string[];
  /** `gateway.durability` (default: `hooks.durability`, else "process") of the journal and session logs. */
  durability: Durability;
  /** `gateway.role` or `--role` (SPEC §16): "consumer" (the default) runs agent turns; "receiver" only verifies, dedupes, stores and answers. */
  role: HookRole;
  /** Absolute plugin directories from `plugins.paths[]`. */
  pluginPaths: string[];
  /** Heartbeat period in ms; 0 = periodic heartbeats disabled. */
  heartbeatEveryMs: number;
  /** Bound of one heartbeat prompt in characters (`agents.defaults.heartbeat.maxPromptChars`). */
  heartbeatMaxPromptChars: number;
  /** Pending system events the main session holds at most (`session.main.maxPending`). */
  mainMaxPending: number;
  /** Hook sessions (`hook:…`) whose files were not written for this many days are removed (`session.hooks.retentionDays`). */
  hookSessionRetentionDays: number;
  /** `gateway.journal.maxBytes`: `journal.jsonl` is rotated to `journal.1.jsonl` before it would pass this size. */
  journalMaxBytes: number;
  runner: RunnerConfig;
  /** Default model ref of agent turns (`agents.defaults.model`, else `agents.runner.model`). */
  defaultModel?: string;
  models: AllowedModel[];
  defaultTimeoutSeconds: number;
  mainLastRoute?: LastRoute;
}

export const DEFAULTS = {
  bind: DEFAULT_GATEWAY_BIND,
  port: DEFAULT_GATEWAY_PORT,
  stateDir: ".gateway",
  heartbeatEvery: "30m",
  heartbeatMaxPromptChars: 100_000,
  mainMaxPending: 10_000,
  hookSessionRetentionDays: 7,
  /** `gateway.journal.maxBytes`: 64 MiB (the journal keeps about twice this on disk). */
  journalMaxBytes: 64 * 1024 * 1024,
  timeoutSeconds: 600,
} as const;
