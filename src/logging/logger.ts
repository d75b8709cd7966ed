/**
 * The plugin's loggers, one per module (`{ module, plugin }` labels), forwarded
 * straight to the host logger — one pipeline: the host's. Every meta object
 * passes through `redactMeta()` and every message through `redactText()` (the one
 * redaction rule, src/host-contract/redaction.ts), with the configured secrets
 * once they are read (`hideSecrets`); the message (the plugin's own sentence, request data is in the
 * meta) names the plugin's config keys where the host keeps them (`keys`, src/host-contract/config-keys.ts), so no credential-named query parameter or
 * header, Bearer/Basic credential or configured secret reaches a log line. A line of a level the
 * host discards (`HostLogger.isLevelEnabled`) is dropped before it is built or
 * redacted, so per-request debug lines cost nothing at the default level.
 */
import type { HostLogger } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import { redactMeta, redactText, type SecretValues } from "../host-contract/redaction";
import { configKeyNamer, type KeyNamer } from "../host-contract/config-keys";

export type { ModuleLogger };

type Level = "debug" | "info" | "warn" | "error";

/** The plugin's loggers: one child per module, and `close()` at the end (nothing is buffered here: the host writes each line). */
export interface PluginLogs {
  forModule(name: string): ModuleLogger;
  /** From now on also hide these configured secrets wherever they appear (called once they are read). */
  hideSecrets(secrets: SecretValues): void;
  close(): void;
}

export function createPluginLogger(host: HostLogger, pluginId = "inbound-webhooks", keys: KeyNamer = configKeyNamer()): PluginLogs {
  let secrets: SecretValues | undefined;
  const emit = (level: Level, module: string, message: string, meta: Record<string, unknown> | undefined): void => {
    if (host.isLevelEnabled?.(level) === false) return;
    const clean = redactMeta({ module, plugin: pluginId, ...(meta ?? {}) }, secrets) as Record<string, unknown>;
    host[level](redactText(keys(String(message)), secrets), clean);
  };
  return {
    hideSecrets: (values) => void (secrets = values),
    forModule: (name) => ({
      debug: (message, meta) => emit("debug", name, message, meta),
      info: (message, meta) => emit("info", name, message, meta),
      warn: (message, meta) => emit("warn", name, message, meta),
      error: (message, meta) => emit("error", name, message, meta),
      isLevelEnabled: (level) => host.isLevelEnabled?.(level) !== false,
    }),
    close: () => undefined,
  };
}
