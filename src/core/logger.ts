/**
 * The logging port: what every module of the plugin logs through. The winston
 * adapter (src/logging/logger.ts) implements it; tests may pass any object with
 * these four methods. Meta must never carry secrets or raw payloads (SPEC §9).
 */
export interface ModuleLogger {
  debug(message: string, meta?: Record<string, unknown>): unknown;
  info(message: string, meta?: Record<string, unknown>): unknown;
  warn(message: string, meta?: Record<string, unknown>): unknown;
  error(message: string, meta?: Record<string, unknown>): unknown;
  /** False when lines of `level` are discarded: a caller on the hot path then skips building its meta. Absent: assume enabled. */
  isLevelEnabled?(level: "debug" | "info" | "warn" | "error"): boolean;
}
