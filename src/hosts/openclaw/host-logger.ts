/**
 * The host contract's logger on OpenClaw's plugin logger, which takes one string per
 * line: the meta (already redacted by the plugin) follows the message as compact
 * JSON. OpenClaw's logger may lack `debug`; debug lines are then discarded, and
 * `isLevelEnabled("debug")` says so, so the plugin does not build them.
 */
import type { HostLogger } from "../../host-contract/host-api";
import type { OpenClawLogger } from "./openclaw-api";

function logLine(message: string, meta: Record<string, unknown> | undefined): string {
  if (!meta) return message;
  const { module, plugin: _plugin, ...rest } = meta;
  const head = typeof module === "string" ? `[${module}] ${message}` : message;
  return Object.keys(rest).length > 0 ? `${head} ${JSON.stringify(rest)}` : head;
}

export function openClawLogger(logger: OpenClawLogger): HostLogger {
  const debug = logger.debug?.bind(logger);
  return {
    debug: (message, meta) => debug?.(logLine(message, meta)),
    info: (message, meta) => logger.info(logLine(message, meta)),
    warn: (message, meta) => logger.warn(logLine(message, meta)),
    error: (message, meta) => logger.error(logLine(message, meta)),
    isLevelEnabled: (level) => level !== "debug" || debug !== undefined,
  };
}
