/** The client a request is counted against (auth throttling, deprecation warnings). */
import type { Request } from "express";
import { ipKeyGenerator } from "express-rate-limit";

/** Keys of recent addresses: grouping an IPv6 address parses it, and the same few clients send most requests. */
const MAX_CACHED = 4096;
/** Longer than any IPv6 address with a zone id: a forwarded value this long is junk and is not cached (bounded memory). */
const MAX_CACHED_LENGTH = 64;
const cache = new Map<string, string>();

function addressKey(address: string): string {
  // An IPv4 address is its own key; only IPv6 (including IPv4-mapped) is grouped.
  if (!address.includes(":")) return address;
  if (address.length > MAX_CACHED_LENGTH) return ipKeyGenerator(address);
  let key = cache.get(address);
  if (key === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    key = ipKeyGenerator(address);
    cache.set(address, key);
  }
  return key;
}

/**
 * The client address as Express reports it (`req.ip` honours the host app's
 * `trust proxy`), IPv6 grouped by /56 like the rate limiter. Without an
 * `X-Forwarded-For` header `req.ip` is the socket's address whatever the trust
 * setting, so it is read from the socket (Express would parse the header anyway).
 */
export function clientKey(req: Request): string {
  const address = req.headers["x-forwarded-for"] === undefined ? req.socket?.remoteAddress : (req.ip ?? req.socket?.remoteAddress);
  return address ? addressKey(address) : "unknown";
}
