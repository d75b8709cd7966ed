/**
 * winston loggers, one child per module (`{ plugin, module }` labels), forwarded
 * to the host logger. Every meta object passes through `redact()` so a token or
 * a `?token=` query can never reach a log line.
 */
import winston from "winston";
import Transport from "winston-transport";
import type { HostLogger } from "../host-contract/host-api";
import type { ModuleLogger } from "../core/logger";
import { redact, redactString } from "../safety/redact";

export type { ModuleLogger };

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

/** Root logger of the plugin; `forModule(name)` gives the per-module child. */
/** The plugin's loggers: one child per module, and `close()` to flush at the end. */
export interface PluginLogs {
  forModule(name: string): ModuleLogger;
  close(): void;
}

export function createPluginLogger(host: HostLogger, pluginId = "inbound-webhooks"): PluginLogs {
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
