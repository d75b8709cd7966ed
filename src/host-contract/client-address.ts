/**
 * The client address a host hands its plugin routes (`HttpRouteContext.clientAddress`,
 * host API 2.0): the socket's address, or — only when the request came through a proxy
 * the host trusts — the address that proxy reports in `X-Forwarded-For` (proxy-addr's
 * rule, as Express's `trust proxy`: the right-most address not trusted). Each host builds
 * it once from its own setting (the embedded gateway's `gateway.trustProxy`, OpenClaw's
 * `gateway.trustedProxies`): addresses, CIDR ranges or proxy-addr's names.
 *
 * @example
 *   const clientAddress = clientAddressResolver(["127.0.0.1"]);
 *   handler(req, res, { clientAddress: clientAddress(req) });
 */
import type { IncomingMessage } from "node:http";
import proxyaddr from "proxy-addr";

/** A socket already closed has no address. */
const UNKNOWN = "unknown";

export function clientAddressResolver(trusted: readonly string[]): (req: IncomingMessage) => string {
  const socketAddress = (req: IncomingMessage): string => req.socket.remoteAddress ?? UNKNOWN;
  if (trusted.length === 0) return socketAddress;
  const trust = proxyaddr.compile([...trusted]);
  // Without the header, proxy-addr would answer the socket's address after parsing nothing.
  return (req) => (req.headers["x-forwarded-for"] === undefined || req.socket.remoteAddress === undefined ? socketAddress(req) : proxyaddr(req, trust));
}
