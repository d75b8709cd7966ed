/**
 * OpenClaw's config → the config snapshot the plugin reads (host contract
 * `PluginApi.config`), and where OpenClaw keeps the plugin's section (`SECTION_KEY`,
 * given to the plugin as `PluginApi.configSection`: it names its keys so).
 *
 * Inside OpenClaw the plugin's section is `plugins.entries.inbound-webhooks.config`
 * (OpenClaw owns the top-level `hooks` key and its own `/hooks` routes, SPEC §15).
 * The snapshot puts that section where the plugin reads it (`hooks`), with the
 * defaults that differ inside OpenClaw: `enabled` true (OpenClaw's
 * `plugins.entries.inbound-webhooks.enabled` is the switch), `path` `/webhooks`,
 * `transformsDir` `webhooks/transforms` (OpenClaw keeps its own hook handlers in
 * `hooks/`), `allowQueryToken` false (OpenClaw's own hooks refuse `?token=`). Beside it, the few host keys the plugin reads: the agent timeout
 * (OpenClaw's own `agents.defaults.timeoutSeconds`), the gateway's port (for
 * `openclaw inbound-webhooks …`, which talk to the running gateway over loopback) and its
 * token (the hook token must differ from it).
 *
 * @example
 *   openClawSnapshot({ gateway: { port: 19001 } }, { token: { env: "HOOK_TOKEN" } })
 *   // { hooks: { enabled: true, path: "/webhooks", transformsDir: "webhooks/transforms", token: { env: "HOOK_TOKEN" } },
 *   //   gateway: { bind: "127.0.0.1", port: 19001 }, agents: { defaults: {} } }
 */

import { MAX_RUN_TIMEOUT_SECONDS } from "../../host-contract/host-api";

export const PLUGIN_ID = "inbound-webhooks";
/** Where the plugin's section lives in OpenClaw's config. */
export const SECTION_KEY = `plugins.entries.${PLUGIN_ID}.config`;
/** Defaults that differ from the embedded gateway's. */
export const OPENCLAW_DEFAULTS = { enabled: true, path: "/webhooks", transformsDir: "webhooks/transforms", allowQueryToken: false } as const;
/**
 * The longest `runs.shutdownGraceSeconds` inside OpenClaw: OpenClaw gives a plugin service
 * 5 s to stop when it restarts it on a config change (and fails the reload past that), and
 * the run queue waits the grace plus up to 1 s. Nothing is lost by the shorter wait: the
 * runs go on in OpenClaw and the next start joins them (agent-turn.ts).
 */
export const OPENCLAW_MAX_STOP_GRACE_SECONDS = 2;
/** OpenClaw's default gateway port (its `gateway.port` default). */
const OPENCLAW_DEFAULT_PORT = 18789;

/** `value` when it is a plain object (a config section), else `{}`. */
export function section(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * OpenClaw's `agents.defaults.timeoutSeconds` (any integer >= 0, 0 = no limit) as the plugin's
 * run bound (0 < n <= MAX_RUN_TIMEOUT_SECONDS): no limit (0) or more than that waits the longest
 * bound the plugin has; OpenClaw's own setting still governs the run itself.
 */
function runBound(seconds: number): number {
  return seconds === 0 || seconds > MAX_RUN_TIMEOUT_SECONDS ? MAX_RUN_TIMEOUT_SECONDS : seconds;
}

/**
 * OpenClaw's gateway token as the plugin reads `gateway.auth.token` (the hook token must differ
 * from it): plain text; OpenClaw's SecretRef of the env source as `{ env }`; none configured →
 * `{ env: "OPENCLAW_GATEWAY_TOKEN" }`, OpenClaw's fallback. Tokens of other sources (file, exec,
 * store) are not compared. An unset variable compares with nothing.
 */
function gatewayToken(auth: Record<string, unknown>): string | { env: string } | undefined {
  if (typeof auth.token === "string") return auth.token;
  if (auth.token === undefined) return { env: "OPENCLAW_GATEWAY_TOKEN" };
  const ref = section(auth.token);
  return ref.source === "env" && typeof ref.id === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(ref.id) ? { env: ref.id } : undefined;
}

/** The section with `runs.shutdownGraceSeconds` at most OPENCLAW_MAX_STOP_GRACE_SECONDS (a value of the wrong type is left for the plugin to report). */
function withStopGrace(hooks: Record<string, unknown>): Record<string, unknown> {
  if (hooks.runs !== undefined && (hooks.runs === null || typeof hooks.runs !== "object" || Array.isArray(hooks.runs))) return hooks;
  const runs = section(hooks.runs);
  const grace = runs.shutdownGraceSeconds;
  if (grace !== undefined && (typeof grace !== "number" || grace <= OPENCLAW_MAX_STOP_GRACE_SECONDS)) return hooks;
  return { ...hooks, runs: { ...runs, shutdownGraceSeconds: OPENCLAW_MAX_STOP_GRACE_SECONDS } };
}

/** The plugin's config snapshot built from OpenClaw's config and `plugins.entries.inbound-webhooks.config`. */
export function openClawSnapshot(openclaw: Readonly<Record<string, unknown>>, pluginConfig: Record<string, unknown> | undefined): Record<string, unknown> {
  const gateway = section(openclaw.gateway);
  const auth = section(gateway.auth);
  const defaults = section(section(openclaw.agents).defaults);
  const port = typeof gateway.port === "number" ? gateway.port : OPENCLAW_DEFAULT_PORT;
  const token = gatewayToken(auth);
  return {
    hooks: withStopGrace({ ...OPENCLAW_DEFAULTS, ...section(pluginConfig) }),
    // OpenClaw's gateway.bind is a mode (loopback, lan, …); `openclaw inbound-webhooks …` run on the gateway's host and use loopback.
    gateway: { bind: "127.0.0.1", port, ...(token !== undefined ? { auth: { token } } : {}) },
    agents: { defaults: typeof defaults.timeoutSeconds === "number" ? { timeoutSeconds: runBound(defaults.timeoutSeconds) } : {} },
  };
}
