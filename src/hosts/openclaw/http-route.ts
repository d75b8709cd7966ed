/**
 * The plugin's route inside OpenClaw: `api.registerHttpRoute({ path, match: "prefix",
 * auth: "plugin" })`. OpenClaw hands the route plain `node:http` requests, and so does
 * the host contract (2.0): the plugin's handler gets them as they are, with the
 * client's address. `auth: "plugin"`: OpenClaw does not check a credential; the plugin
 * checks its hook token and sender signatures itself, and answers every path below its
 * prefix (a path that is not its own with its JSON 404).
 *
 * The client's address honours OpenClaw's `gateway.trustedProxies` (proxy-addr's rule,
 * src/host-contract/client-address.ts), so the plugin's throttles see the client a
 * trusted proxy reports, as OpenClaw does.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { clientAddressResolver } from "../../host-contract/client-address";
import type { HttpRouteRegistration } from "../../host-contract/http-route";
import type { OpenClawHttpRoute } from "./openclaw-api";
import { section, SECTION_KEY } from "./config-snapshot";

/** OpenClaw's own hooks path when its hooks are on (`hooks.enabled`; `hooks.path`, default `/hooks`, without a trailing `/`). */
function openClawHooksPath(config: Readonly<Record<string, unknown>>): string | undefined {
  const hooks = section(config.hooks);
  if (hooks.enabled !== true) return undefined;
  const trimmed = (typeof hooks.path === "string" ? hooks.path : "/hooks").trim().replace(/^\/+|\/+$/g, "");
  return `/${trimmed}`;
}

/**
 * The problem of a route prefix inside OpenClaw's own hooks path: OpenClaw answers every
 * request there before any plugin route, so the plugin would be registered and never
 * reached (SPEC §3: the path must not collide with the gateway's routes). Undefined when free.
 */
export function hooksPathCollision(prefix: string, config: Readonly<Record<string, unknown>>): string | undefined {
  const theirs = openClawHooksPath(config);
  if (theirs === undefined || (theirs !== "/" && prefix !== theirs && !prefix.startsWith(`${theirs}/`))) return undefined;
  return `${SECTION_KEY}.path "${prefix}" is inside OpenClaw's own hooks path "${theirs}" (hooks.path), which OpenClaw answers before any plugin route; choose another path, e.g. "/webhooks"`;
}

/**
 * The same problem for the section's configured path (`hooks.path` of the snapshot, written as the
 * plugin normalises it), for a start that failed before any route was registered: it is listed with
 * the plugin's own problems instead of after they are fixed.
 */
export function configuredPathCollision(hooks: Record<string, unknown>, config: Readonly<Record<string, unknown>>): string | undefined {
  if (hooks.enabled === false || typeof hooks.path !== "string") return undefined;
  return hooksPathCollision(`/${hooks.path.replace(/\/{2,}/g, "/").replace(/^\/+|\/+$/g, "")}`, config);
}

function trustedProxies(config: Readonly<Record<string, unknown>>): string[] {
  const gateway = config.gateway;
  const list = gateway && typeof gateway === "object" ? (gateway as { trustedProxies?: unknown }).trustedProxies : undefined;
  return Array.isArray(list) ? list.filter((p): p is string => typeof p === "string") : [];
}

/** OpenClaw's route registration for one of the plugin's routes. */
export function openClawRoute(route: HttpRouteRegistration, config: Readonly<Record<string, unknown>>): OpenClawHttpRoute {
  const clientAddress = clientAddressResolver(trustedProxies(config));
  return {
    path: route.prefix,
    match: "prefix",
    auth: "plugin",
    handler: (req: IncomingMessage, res: ServerResponse) =>
      new Promise<boolean>((resolve) => {
        // Settled when the answer is complete (or the client went away): OpenClaw counts the request as handled.
        res.once("close", () => resolve(true));
        res.once("finish", () => resolve(true));
        route.handler(req, res, { clientAddress: clientAddress(req) });
      }),
  };
}
