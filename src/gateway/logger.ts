/**
 * The gateway's log: winston to stderr, one entry per line, one child per plugin,
 * in the format `gateway.logFormat` names:
 *
 * - `pretty` (the default when the log stream is a terminal):
 *   `<iso> <LEVEL> [<module>] message {meta}` with the level and module columns
 *   padded so messages line up; coloured when the stream is a terminal and
 *   `NO_COLOR` is unset.
 * - `json` (the default otherwise): one JSON object per line,
 *   `{"ts","level","label","message",…meta}`, for log shippers.
 *
 * Meta passes through the one redaction rule (src/host-contract/redaction.ts) in
 * both as a last line of defence: credential-named keys, credential query
 * parameters and Bearer/Basic credentials in strings (the plugin redacts its own
 * meta before it gets here). stdout is reserved for the
 * start-up lines tests and users read (`listening: <url>`).
 */
import winston from "winston";
import type { HostLogger } from "../host-contract/host-api";
import { redactMeta, redactText } from "../host-contract/redaction";
import type { LogFormat, LogLevel } from "./config/gateway-config";

/** Width of the module column (`[inbound-webhooks/idempotency]` fits); longer names push the message right. */
export const MODULE_COLUMN_WIDTH = 32;
/** Keys of a JSON line that meta cannot overwrite. */
const CORE_KEYS = new Set(["ts", "level", "label", "message"]);

const COLOURS: Record<string, string> = { error: "\x1b[31m", warn: "\x1b[33m", info: "\x1b[32m", debug: "\x1b[90m" };
const DIM = "\x1b[2m";
const RESET = "\x1b[0m";

function mask(meta: Record<string, unknown>): Record<string, unknown> {
  return redactMeta(meta) as Record<string, unknown>;
}

export interface GatewayLogger {
  /** Logger labelled `gateway` (or the given module). */
  child(label: string): HostLogger;
  close(): void;
}

/** `pretty` on a terminal, `json` otherwise. */
export function defaultLogFormat(stream: NodeJS.WritableStream): LogFormat {
  return (stream as { isTTY?: boolean }).isTTY === true ? "pretty" : "json";
}

interface Entry {
  level: string;
  message: unknown;
  timestamp: unknown;
  label: unknown;
  meta: Record<string, unknown>;
}

function jsonLine(e: Entry): string {
  const out: Record<string, unknown> = { ts: e.timestamp, level: e.level, label: e.label, message: redactText(String(e.message)) };
  for (const [k, v] of Object.entries(mask(e.meta))) out[CORE_KEYS.has(k) ? `meta.${k}` : k] = v;
  return JSON.stringify(out);
}

function prettyLine(e: Entry, colour: boolean): string {
  // A plugin's module (its loggers' `module` meta) joins the label: [inbound-webhooks/http].
  const { module, ...rest } = e.meta;
  const meta = mask(rest);
  if (meta.plugin === e.label) delete meta.plugin;
  const name = typeof module === "string" ? `${String(e.label)}/${module}` : String(e.label);
  const level = e.level.toUpperCase().padEnd(5);
  const column = `[${name}]`.padEnd(MODULE_COLUMN_WIDTH);
  const tail = Object.keys(meta).length > 0 ? ` ${JSON.stringify(meta)}` : "";
  const message = redactText(String(e.message));
  if (!colour) return `${String(e.timestamp)} ${level} ${column} ${message}${tail}`;
  return `${DIM}${String(e.timestamp)}${RESET} ${COLOURS[e.level] ?? ""}${level}${RESET} ${column} ${message}${tail ? `${DIM}${tail}${RESET}` : ""}`;
}

export interface GatewayLoggerOptions {
  /** Default process.stderr. */
  stream?: NodeJS.WritableStream;
  /** Default: defaultLogFormat(stream). */
  format?: LogFormat;
  /** For the NO_COLOR check; default process.env. */
  env?: NodeJS.ProcessEnv;
}

export function createGatewayLogger(level: LogLevel = "info", streamOrOptions: NodeJS.WritableStream | GatewayLoggerOptions = {}): GatewayLogger {
  const opts: GatewayLoggerOptions =
    "write" in streamOrOptions ? { stream: streamOrOptions as NodeJS.WritableStream } : (streamOrOptions as GatewayLoggerOptions);
  const stream = opts.stream ?? process.stderr;
  const format = opts.format ?? defaultLogFormat(stream);
  const colour = format === "pretty" && (stream as { isTTY?: boolean }).isTTY === true && !(opts.env ?? process.env).NO_COLOR;
  const root = winston.createLogger({
    level,
    format: winston.format.combine(
      winston.format.timestamp(),
      winston.format.printf((info) => {
        const { level: lvl, message, timestamp, label, ...meta } = info as Record<string, unknown>;
        const entry: Entry = { level: String(lvl), message, timestamp, label, meta };
        return format === "json" ? jsonLine(entry) : prettyLine(entry, colour);
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
