/**
 * Where a gateway listens, as plugin and host both need to know it: the default
 * bind address and port (SPEC §2.2), what a TCP port may be, and which hosts are
 * this machine. The embedded gateway uses these for `gateway.bind`/`gateway.port`
 * and `--port`; the plugin for the mail watcher's default hook URL, the IMAP port of
 * `mail setup` and its warning about unencrypted IMAP.
 */

/** Default of `gateway.bind`: loopback only. */
export const DEFAULT_GATEWAY_BIND = "127.0.0.1";
/** Default of `gateway.port`. */
export const DEFAULT_GATEWAY_PORT = 18789;
/** The highest TCP port. */
export const MAX_PORT = 65535;

/** The rule `parsePort` checks, as the end of a sentence that starts with the flag or key. */
export function portRule(min: 0 | 1): string {
  return `must be an integer between ${min} and ${MAX_PORT}`;
}

/**
 * A TCP port written as decimal digits (surrounding whitespace ignored), from `min`
 * to 65535: `min` 0 for a port to listen on (0 lets the system pick a free one),
 * 1 for a port to connect to. Undefined when the text is not such a port; callers
 * report `portRule(min)` in their own error type.
 *
 * @example parsePort("8080", 1) // 8080
 * @example parsePort("0", 1) // undefined
 */
export function parsePort(text: string, min: 0 | 1): number | undefined {
  const s = text.trim();
  if (!/^\d+$/.test(s)) return undefined;
  const n = Number(s);
  return n >= min && n <= MAX_PORT ? n : undefined;
}

/**
 * The host to connect to for a gateway bound to `bind` (default: the default bind): a
 * wildcard bind is reached over loopback, an IPv6 literal is bracketed for a URL.
 *
 * @example connectHost("0.0.0.0") // "127.0.0.1"
 * @example connectHost("::1") // "[::1]"
 */
export function connectHost(bind: unknown): string {
  const b = typeof bind === "string" && bind.trim() !== "" ? bind.trim() : DEFAULT_GATEWAY_BIND;
  if (b === "0.0.0.0") return "127.0.0.1";
  if (b === "::" || b === "[::]") return "[::1]";
  return b.includes(":") && !b.startsWith("[") ? `[${b}]` : b;
}

/**
 * True for 127.0.0.0/8 (also IPv4-mapped, `::ffff:127.x.y.z`), `::1` and `localhost`,
 * in any case and with or without IPv6 brackets.
 *
 * @example isLoopback("[::1]") // true
 * @example isLoopback("0.0.0.0") // false
 */
export function isLoopback(host: string): boolean {
  const b = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, "$1");
  if (b === "localhost" || b === "::1" || b === "0:0:0:0:0:0:0:1") return true;
  return /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(b);
}
