/**
 * The host contract's logger on OpenClaw's plugin logger, which takes one string per
 * line: the meta (already redacted by the plugin) follows the message as compact
 * JSON. Debug lines are kept only when OpenClaw keeps them (its logger has `debug`
 * and `runtime.logging.shouldLogVerbose()` — verbose mode or a file log level of
 * debug — says so); otherwise `isLevelEnabled("debug")` is false and the plugin does
 * not build its per-request debug lines at all. The message names the section's keys as
 * OpenClaw's already: the plugin writes them so (`PluginApi.configSection`, plugin-entry.ts).
 */
import type { HostLogger } from "../../host-contract/host-api";
import type { OpenClawLogger } from "./openclaw-api";

function logLine(text: string, meta: Record<string, unknown> | undefined): string {
  if (!meta) return text;
  const { module, plugin: _plugin, ...rest } = meta;
  const head = typeof module === "string" ? `[${module}] ${text}` : text;
  return Object.keys(rest).length > 0 ? `${head} ${JSON.stringify(rest)}` : head;
}

/** `verbose`: OpenClaw's answer to "are debug lines kept?" (asked per line; when it cannot answer, they are). */
export function openClawLogger(logger: OpenClawLogger, verbose: () => boolean = () => true): HostLogger {
  const debug = logger.debug?.bind(logger);
  const keepsDebug = (): boolean => {
    try {
      return verbose();
    } catch {
      return true;
    }
  };
  return {
    debug: (message, meta) => debug?.(logLine(message, meta)),
    info: (message, meta) => logger.info(logLine(message, meta)),
    warn: (message, meta) => logger.warn(logLine(message, meta)),
    error: (message, meta) => logger.error(logLine(message, meta)),
    isLevelEnabled: (level) => level !== "debug" || (debug !== undefined && keepsDebug()),
  };
}
