/**
 * The gateway's log: winston to stderr, one line per entry
 * (`<iso> <level> [<label>] message {meta}`), one child per plugin. Secret-named
 * meta keys are masked as a last line of defence. stdout is reserved for the
 * start-up lines tests and users read (`listening: <url>`).
 */
import winston from "winston";
import type { HostLogger } from "../host-contract/host-api";
import type { LogLevel } from "./config/gateway-config";

const SECRET = /^(token|authorization|x-service-token|cookie|password|secret|apikey|api_key)$/i;

function mask(meta: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(meta)) out[k] = SECRET.test(k) ? "[REDACTED]" : v;
  return out;
}

export interface GatewayLogger {
  /** Logger labelled `gateway` (or the given module). */
  child(label: string): HostLogger;
  close(): void;
}

export function createGatewayLogger(level: LogLevel = "info", stream: NodeJS.WritableStream = process.stderr): GatewayLogger {
  const root = winston.createLogger({
    level,
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.printf((info) => {
        const { level: lvl, message, timestamp, label, ...meta } = info as Record<string, unknown>;
        const rest = Object.keys(meta).length > 0 ? ` ${JSON.stringify(mask(meta))}` : "";
        return `${String(timestamp)} ${String(lvl).toUpperCase().padEnd(5)} [${String(label)}] ${String(message)}${rest}`;
      }),
    ),
    transports: [new winston.transports.Stream({ stream })],
  });
  return {
    child(label) {
      const c = root.child({ label });
      // Lines below the level are dropped before winston builds them (per-request debug lines cost nothing at info).
      const on = (lvl: LogLevel) => root.isLevelEnabled(lvl);
      return {
        debug: (m, meta) => void (on("debug") && c.debug(m, meta ?? {})),
        info: (m, meta) => void (on("info") && c.info(m, meta ?? {})),
        warn: (m, meta) => void c.warn(m, meta ?? {}),
        error: (m, meta) => void c.error(m, meta ?? {}),
        isLevelEnabled: on,
      };
    },
    close: () => root.close(),
  };
}
