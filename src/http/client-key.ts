/** The client a request is counted against (auth throttling, deprecation warnings). */
import type { Request } from "express";
import { ipKeyGenerator } from "express-rate-limit";

/**
 * The client address as Express reports it (`req.ip` honours the host app's
 * `trust proxy`), IPv6 grouped by /56 like the rate limiter.
 */
export function clientKey(req: Request): string {
  const address = req.ip ?? req.socket?.remoteAddress;
  return address ? ipKeyGenerator(address) : "unknown";
}
