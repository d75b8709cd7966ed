/**
 * The default hook URL of the mail watcher, derived from the gateway config:
 * `http://<gateway.bind>:<gateway.port><hooks.path>/mail`. A wildcard bind
 * (0.0.0.0, ::) is reached over loopback.
 */

export const DEFAULT_GATEWAY_PORT = 18789;
export const DEFAULT_HOOKS_PATH = "/hooks";

/** `hooks.path` normalised as the plugin does: leading `/`, no trailing `/`. */
export function normaliseHooksPath(p: unknown): string {
  if (typeof p !== "string" || p.trim() === "") return DEFAULT_HOOKS_PATH;
  const trimmed = "/" + p.trim().replace(/^\/+/, "").replace(/\/+$/, "");
  return trimmed === "/" ? DEFAULT_HOOKS_PATH : trimmed;
}

function hostForUrl(bind: unknown): string {
  const b = typeof bind === "string" && bind.trim() !== "" ? bind.trim() : "127.0.0.1";
  if (b === "0.0.0.0") return "127.0.0.1";
  if (b === "::" || b === "[::]") return "[::1]";
  if (b.includes(":") && !b.startsWith("[")) return `[${b}]`;
  return b;
}

/**
 * Default hook URL from a raw gateway config object.
 *
 * @example defaultHookUrl({ gateway: { port: 8080 }, hooks: { path: "/in" } }) // "http://127.0.0.1:8080/in/mail"
 */
export function defaultHookUrl(raw: Readonly<Record<string, unknown>>): string {
  const gateway = (raw.gateway && typeof raw.gateway === "object" ? raw.gateway : {}) as Record<string, unknown>;
  const hooks = (raw.hooks && typeof raw.hooks === "object" ? raw.hooks : {}) as Record<string, unknown>;
  const port = typeof gateway.port === "number" && Number.isInteger(gateway.port) ? gateway.port : DEFAULT_GATEWAY_PORT;
  return `http://${hostForUrl(gateway.bind)}:${port}${normaliseHooksPath(hooks.path)}/mail`;
}
