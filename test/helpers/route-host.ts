/**
 * A host's routing of plugin routes (host API 2.0), as small as the contract allows, for
 * supertest: a request whose path is a route's prefix or below it (the contract's rule,
 * src/host-contract/route-path.ts) goes to that route's node-level handler with the
 * client's address (the trusted proxies' rule of src/host-contract/client-address.ts);
 * anything else gets the host's own 404, a text body (never the plugin's JSON).
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { clientAddressResolver } from "../../src/host-contract/client-address";
import type { HttpRouteRegistration } from "../../src/host-contract/http-route";
import { pathBelow } from "../../src/host-contract/route-path";

/** Body the host's own 404 sends. */
export const HOST_NOT_FOUND = "host: no route";

export function routeHost(routes: readonly HttpRouteRegistration[], opts: { trustProxy?: readonly string[] } = {}): RequestListener {
  const clientAddress = clientAddressResolver(opts.trustProxy ?? []);
  return (req: IncomingMessage, res: ServerResponse) => {
    const route = routes.find((r) => pathBelow(r.prefix, req.url ?? "/") !== undefined);
    if (route) return route.handler(req, res, { clientAddress: clientAddress(req) });
    res.statusCode = 404;
    res.setHeader("Content-Type", "text/plain");
    res.end(HOST_NOT_FOUND);
  };
}
