/**
 * The HTTP route prefixes in use: the gateway's own (`/healthz`, `/api`, `/metrics`, `/ui`) and one
 * per plugin route. Two prefixes collide when one equals the other or contains it
 * as a whole path segment (`/hooks` vs `/hooks/x`), compared case-insensitively;
 * `/hooks` and `/hooksX` do not collide.
 */
import type { HttpRouteHandler } from "../../host-contract/http-route";

export const GATEWAY_ROUTES = ["/healthz", "/api", "/metrics", "/ui"] as const;

export interface RouteEntry {
  prefix: string;
  handler: HttpRouteHandler;
  pluginId: string;
}

export function prefixesCollide(a: string, b: string): boolean {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || x.startsWith(`${y}/`) || y.startsWith(`${x}/`);
}

/** The owner of an existing route `prefix` collides with, if any. */
export function findCollision(prefix: string, routes: readonly RouteEntry[]): { prefix: string; owner: string } | undefined {
  for (const g of GATEWAY_ROUTES) if (prefixesCollide(prefix, g)) return { prefix: g, owner: "the gateway" };
  for (const r of routes) if (prefixesCollide(prefix, r.prefix)) return { prefix: r.prefix, owner: `plugin ${r.pluginId}` };
  return undefined;
}
