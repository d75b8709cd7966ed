/**
 * Where the mail watcher posts when `hooks.mail.hookUrl` is not set: the `mail` hook
 * of the gateway this config belongs to,
 * `http://<gateway.bind>:<gateway.port><hooks.path>/mail`. Resolved once, here:
 * `resolveConfig()` puts it into `mail.hookUrl`, which `mail run`, the
 * `hooks.mail.autoStart` service and (as the offered default) `mail setup` all read.
 */
import { connectHost, DEFAULT_GATEWAY_PORT, MAX_PORT } from "../host-contract/gateway-address";
import { isCredentialName } from "../host-contract/redaction";
import { normaliseHookPath } from "./paths";
import { rawSection } from "./raw-section";
import { HOOKS_DEFAULTS } from "./rules";

/**
 * The default hook URL of the mail watcher, from the raw gateway config (the host
 * validates `gateway.*`; a missing or unusable bind/port falls back to the gateway's
 * defaults, a missing or empty `hooks.path` to `/hooks`).
 *
 * @example defaultMailHookUrl({ gateway: { port: 8080 }, hooks: { path: "/in/" } }) // "http://127.0.0.1:8080/in/mail"
 * @example defaultMailHookUrl({ gateway: { bind: "0.0.0.0" } }) // "http://127.0.0.1:18789/hooks/mail"
 */
export function defaultMailHookUrl(raw: Readonly<Record<string, unknown>>): string {
  return `${hooksBaseUrl(raw)}/mail`;
}

/**
 * The URL of `hooks.path` on the gateway this config belongs to, by the same rules:
 * what `gateway webhooks deliveries|runs …` talk to. `origin` (`http://host:port`),
 * when given, is where that gateway actually listens (its port may be another than
 * `gateway.port`: `--port N`, `--port 0`) and replaces the config's address.
 *
 * @example hooksBaseUrl({ gateway: { port: 8080 }, hooks: { path: "/in/" } }) // "http://127.0.0.1:8080/in"
 * @example hooksBaseUrl({ gateway: { port: 8080 } }, "http://127.0.0.1:41234") // "http://127.0.0.1:41234/hooks"
 */
export function hooksBaseUrl(raw: Readonly<Record<string, unknown>>, origin?: string): string {
  const gateway = rawSection(raw, "gateway");
  const hooks = rawSection(raw, "hooks");
  const port =
    Number.isInteger(gateway.port) && (gateway.port as number) >= 1 && (gateway.port as number) <= MAX_PORT ? (gateway.port as number) : DEFAULT_GATEWAY_PORT;
  const hooksPath = typeof hooks.path === "string" ? normaliseHookPath(hooks.path) : "/";
  return `${origin ?? `http://${connectHost(gateway.bind)}:${port}`}${hooksPath === "/" ? HOOKS_DEFAULTS.path : hooksPath}`;
}

/**
 * The credential a hook URL carries, if any: `user:password@` (fetch refuses such a URL, so every
 * post would fail) or a query parameter with a credential's name (`?token=`, `?key=`,
 * `?access_token=`: the one redaction rule, host-contract/redaction.ts). The watcher sends the hook
 * token in a header; a credential in the URL would only be one more place a secret is written.
 * Used by the config check and by `mail setup`.
 */
export function hookUrlCredential(url: URL): "user:password@" | "query" | undefined {
  if (url.username || url.password) return "user:password@";
  for (const name of url.searchParams.keys()) if (isCredentialName(name)) return "query";
  return undefined;
}
