/**
 * Per-client request limits (`hooks.rateLimit`, with per-mapping overrides), on
 * express-rate-limit. Mounted by the router after auth, so only authenticated
 * requests count (failed auth has its own throttle).
 *
 * - Client: the request IP as Express reports it (`req.ip`; honours the host
 *   app's `trust proxy`), IPv6 addresses grouped by /56.
 * - Policy: a mapping with `rateLimit` whose `match.path` equals the request's
 *   sub-path gets its own counter and limit; every other request (wake, agent,
 *   run status, other mappings) counts against `hooks.rateLimit`. A mapping matched
 *   only by `match.source` cannot have its own limit here (the body is not parsed
 *   yet when the limit is checked); it uses the default.
 * - Over the limit: 429 `too_many_requests` in the error body format, with
 *   `Retry-After` and the IETF draft-8 `RateLimit` / `RateLimit-Policy` headers
 *   (also sent on allowed requests).
 * - `hooks.rateLimit.enabled: false` turns the default limit off; explicit
 *   per-mapping limits still apply.
 *
 * @example
 *   createHooksRouter({ ..., rateLimiter: createRateLimiter(config, { logger }) })
 */
import type { Request, RequestHandler, Response } from "express";
import { rateLimit } from "express-rate-limit";
import type { ResolvedHooksConfig } from "../config/types";
import type { ModuleLogger } from "../core/logger";
import { hookErrors } from "../core/errors";
import { hookNameOf } from "../core/hook-name";
import { clientKey as defaultClientKey } from "./client-key";

/** What was exceeded, passed to `onLimited`. */
export interface RateLimitedInfo {
  /** "hooks" (the default policy) or "mapping:<id>". */
  policy: string;
  limit: number;
  windowSeconds: number;
  retryAfterSeconds: number;
}

export interface RateLimiterOptions {
  logger?: ModuleLogger;
  /** Called for each rejected request (logging, events, metrics). */
  onLimited?: (req: Request, info: RateLimitedInfo) => void;
  /** Client key; default the client IP (IPv6 by /56 subnet). */
  clientKey?: (req: Request) => string;
}

interface Policy {
  name: string;
  limit: number;
  windowSeconds: number;
  middleware: RequestHandler;
}

/** The hook's one name (src/core/hook-name.ts) of the path below the mount point; undefined when it names none. */
function hookOf(req: Request): string | undefined {
  const named = hookNameOf(req.path);
  return named.ok ? named.name : undefined;
}

export function createRateLimiter(config: ResolvedHooksConfig, opts: RateLimiterOptions = {}): RequestHandler {
  const clientKey = opts.clientKey ?? defaultClientKey;
  const erlLogger = {
    warn: (error: unknown, message?: string) => opts.logger?.warn(message ?? "rate limiter warning", { error: String(error) }),
    error: (error: unknown, message?: string) => opts.logger?.error(message ?? "rate limiter error", { error: String(error) }),
  };

  /** `hookPath`: the mapped hook a per-mapping policy guards (none for hooks.rateLimit). */
  const makePolicy = (name: string, limit: number, windowSeconds: number, hookPath?: string): Policy => ({
    name,
    limit,
    windowSeconds,
    middleware: rateLimit({
      windowMs: windowSeconds * 1000,
      limit,
      standardHeaders: "draft-8",
      legacyHeaders: false,
      identifier: name,
      keyGenerator: (req) => clientKey(req),
      logger: erlLogger,
      handler: (req, res: Response) => {
        const retryAfterSeconds = Number(res.getHeader("Retry-After") ?? windowSeconds);
        const args = { limit, windowSeconds, retryAfterSeconds };
        const error = hookPath === undefined ? hookErrors.rateLimited(args) : hookErrors.rateLimitedOnPath({ ...args, hookPath });
        opts.logger?.warn("request rate-limited", { policy: name, limit, windowSeconds, retryAfterSeconds });
        opts.onLimited?.(req, { policy: name, limit, windowSeconds, retryAfterSeconds });
        res.status(error.status).json(error.toBody());
      },
    }),
  });

  const byPath = new Map<string, Policy>();
  for (const m of config.mappings) {
    const path = m.match?.path;
    if (!m.rateLimit || path === undefined || byPath.has(path)) continue;
    byPath.set(path, makePolicy(`mapping:${m.id}`, m.rateLimit.max, m.rateLimit.windowSeconds, `${config.path}/${path}`));
  }
  const fallback = config.rateLimit.enabled
    ? makePolicy("hooks", config.rateLimit.max, config.rateLimit.windowSeconds)
    : undefined;

  if (byPath.size === 0 && !fallback) return (_req, _res, next) => next();

  return function hooksRateLimit(req, res, next) {
    const hook = hookOf(req);
    const policy = (hook !== undefined ? byPath.get(hook) : undefined) ?? fallback;
    if (!policy) {
      next();
      return;
    }
    return policy.middleware(req, res, next);
  };
}
