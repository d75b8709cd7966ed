/**
 * The plugin's loggers, one per module (`{ module, plugin }` labels), forwarded
 * straight to the host logger — one pipeline: the host's. Every meta object
 * passes through `redact()` and every message through `redactString()`, so a
 * token or a `?token=` query can never reach a log line. A line of a level the
 * host discards (`HostLogger.isLevelEnabled`) is dropped before it is built or
 * redacted, so per-request debug lines cost nothing at the default level.
 */
import type { HostLogger } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import { redact, redactString } from "../safety/redact";

export type { ModuleLogger };

type Level = "debug" | "info" | "warn" | "error";

/** The plugin's loggers: one child per module, and `close()` at the end (nothing is buffered here: the host writes each line). */
export interface PluginLogs {
  forModule(name: string): ModuleLogger;
  close(): void;
}

export function createPluginLogger(host: HostLogger, pluginId = "inbound-webhooks"): PluginLogs {
  const emit = (level: Level, module: string, message: string, meta: Record<string, unknown> | undefined): void => {
    if (host.isLevelEnabled?.(level) === false) return;
    const clean = redact({ module, plugin: pluginId, ...(meta ?? {}) }) as Record<string, unknown>;
    host[level](redactString(String(message)), clean);
  };
  return {
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
