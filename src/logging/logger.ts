/**
 * winston loggers, one child per module (`{ plugin, module }` labels), forwarded
 * to the host logger. Every meta object passes through `redact()` so a token or
 * a `?token=` query can never reach a log line.
 */
import winston from "winston";
import Transport from "winston-transport";
import type { HostLogger } from "../plugin/host-api";
import { redactQueryTokens } from "./query-token-redaction";

const SECRET_KEYS = /^(token|authorization|x-service-token|cookie|password|secret|apikey|api_key)$/i;

/**
 * Replaces the value of every token query parameter (whatever its case or
 * percent-encoding: `?token=`, `?%74oken=`, `?TOKEN=`) and every Bearer credential.
 */
export function redactString(s: string): string {
  return redactQueryTokens(s).replace(/(Bearer\s+)[^\s"']+/gi, "$1[REDACTED]");
}

export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]";
  if (typeof value === "string") return redactString(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEYS.test(k) ? "[REDACTED]" : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

class HostTransport extends Transport {
  constructor(private readonly host: HostLogger) {
    super();
  }
  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    const { level, message, ...meta } = info as { level: string; message: string; [k: string]: unknown };
    const clean = redact(meta) as Record<string, unknown>;
    const text = redactString(String(message));
    const fn = level === "error" ? this.host.error : level === "warn" ? this.host.warn : level === "debug" ? this.host.debug : this.host.info;
    fn.call(this.host, text, clean);
    next();
  }
}

export type ModuleLogger = Pick<winston.Logger, "debug" | "info" | "warn" | "error">;

/** Root logger of the plugin; `forModule(name)` gives the per-module child. */
export function createPluginLogger(host: HostLogger, pluginId = "inbound-webhooks"): { forModule(name: string): ModuleLogger; close(): void } {
  const root = winston.createLogger({
    level: "debug",
    defaultMeta: { plugin: pluginId },
    transports: [new HostTransport(host)],
  });
  return {
    forModule: (name) => root.child({ module: name }),
    close: () => root.close(),
  };
}
