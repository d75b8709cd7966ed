/**
 * DNS-rebinding protection of the operator surface (`/ui`, `/api`, `/metrics`): which `Host`
 * names it answers. A web page whose DNS name is rebound to 127.0.0.1 reaches a
 * loopback gateway as its own origin; only the `Host` header still carries the
 * page's name. So, as Jupyter (`allow_remote_access`) and webpack-dev-server
 * (`allowedHosts`) do, a gateway listening on loopback answers its dashboard and
 * operator API only for loopback names (`localhost`, `*.localhost`, 127.0.0.0/8,
 * `[::1]`, any port) and the names of `gateway.ui.allowedHosts` (a reverse proxy's
 * public name). A gateway bound elsewhere is already reachable from other machines:
 * it checks only when that list is set. `/metrics` is checked too (its wrong tokens
 * count in the operator throttle). Hook routes and `/healthz` are never checked
 * (webhook senders come through tunnels that forward a public Host).
 *
 * @example
 *   const rule = dashboardHostRule("127.0.0.1", ["dash.example.com"]);
 *   hostAllowed(rule, "dash.example.com:443")   // true
 *   hostAllowed(rule, "rebound.attacker.test")  // false
 */
import net from "node:net";
import type { NextFunction, Request, Response } from "express";
import { isLoopback } from "../../host-contract/gateway-address";

export const HOST_NOT_ALLOWED = "host_not_allowed";
export const HOST_NOT_ALLOWED_MESSAGE =
  "The dashboard, the operator API and /metrics answer only requests addressed to a loopback name (localhost, 127.0.0.1, [::1]) or to a name listed in gateway.ui.allowedHosts (a protection against DNS rebinding); to reach them through a reverse proxy or another name, add that host name to gateway.ui.allowedHosts.";

/** Which Host names the operator surface answers. */
export interface DashboardHostRule {
  /** False: every Host passes (a gateway bound to a non-loopback address without gateway.ui.allowedHosts). */
  readonly enforced: boolean;
  /** Names allowed besides the loopback ones: lowercase, without port, brackets or trailing dot. */
  readonly names: ReadonlySet<string>;
}

const LOOPBACK_ADDRESSES = new net.BlockList();
LOOPBACK_ADDRESSES.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK_ADDRESSES.addAddress("::1", "ipv6");

/** A host name or address as compared: lowercase, IPv6 without brackets, no trailing dot. */
export function normalizeHostName(name: string): string {
  const lower = name.toLowerCase();
  const bare = lower.startsWith("[") && lower.endsWith("]") ? lower.slice(1, -1) : lower;
  return bare.endsWith(".") ? bare.slice(0, -1) : bare;
}

/**
 * The rule for a gateway bound to `bind`: enforced on a loopback bind, or whenever
 * `allowedHosts` is given; the bind address itself is allowed too (unless a wildcard).
 */
export function dashboardHostRule(bind: string, allowedHosts: readonly string[] | undefined): DashboardHostRule {
  const names = new Set((allowedHosts ?? []).map(normalizeHostName));
  const own = normalizeHostName(bind.trim());
  if (own !== "0.0.0.0" && own !== "::") names.add(own);
  return { enforced: isLoopback(bind) || allowedHosts !== undefined, names };
}

/**
 * The name of a `Host` header (`name`, `name:port`, `[v6]`, `[v6]:port`), normalized;
 * undefined when the header is missing or not of that form.
 */
export function hostHeaderName(host: string | undefined): string | undefined {
  if (!host) return undefined;
  let name = host;
  let port = "";
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    if (end < 0) return undefined;
    name = host.slice(0, end + 1);
    port = host.slice(end + 1);
  } else {
    const colon = host.indexOf(":");
    if (colon >= 0) {
      name = host.slice(0, colon);
      port = host.slice(colon);
    }
  }
  if (port !== "" && !/^:\d{1,5}$/.test(port)) return undefined;
  const normal = normalizeHostName(name);
  return normal === "" ? undefined : normal;
}

/** localhost, a name under `.localhost` (browsers resolve those to loopback themselves), 127.0.0.0/8, ::1 (also IPv4-mapped). */
export function isLoopbackName(name: string): boolean {
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const family = net.isIP(name);
  return family !== 0 && LOOPBACK_ADDRESSES.check(name, family === 4 ? "ipv4" : "ipv6");
}

/** True when the operator surface answers a request with this `Host` header. */
export function hostAllowed(rule: DashboardHostRule, host: string | undefined): boolean {
  if (!rule.enforced) return true;
  const name = hostHeaderName(host);
  return name !== undefined && (isLoopbackName(name) || rule.names.has(name));
}

/**
 * Middleware refusing a request whose Host the rule does not allow, before any
 * credential is looked at (so it never counts in the operator throttle); `refuse`
 * answers 403 with the code and sentence in the caller's format (JSON or a page).
 */
export function refuseForeignHosts(
  rule: DashboardHostRule,
  refuse: (req: Request, res: Response, status: number, code: string, message: string) => void,
  onRefused?: (req: Request) => void,
) {
  return function hostCheck(req: Request, res: Response, next: NextFunction): void {
    if (hostAllowed(rule, req.headers.host)) return next();
    onRefused?.(req);
    refuse(req, res, 403, HOST_NOT_ALLOWED, HOST_NOT_ALLOWED_MESSAGE);
  };
}
