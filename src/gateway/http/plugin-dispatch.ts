/**
 * Hands a request below a plugin route's prefix straight to that plugin's handler,
 * as Express's `app.use(prefix, handler)` would (the handler sees `req.url`
 * relative to the prefix, `req.baseUrl` the prefix, `req.originalUrl` the URL as
 * received), without first walking the app's router past the gateway's own routes.
 * That walk — a layer match per gateway route, then the mount — cost about a sixth
 * of a small webhook's accept time (docs/performance.md).
 *
 * It takes only what it can route exactly like the mount: an origin-form URL
 * (starting with `/`) whose path is the prefix or continues it with `/`, matched
 * case-sensitively (the app's routing is), for a prefix made only of characters
 * Express's path matcher reads literally. Anything else returns false and goes to
 * the Express app. Plugin prefixes never collide with each other or with the
 * gateway's routes (route-table.ts), so at most one route can take a request and
 * the gateway's own routes can never match it.
 *
 * @example
 *   const dispatch = createPluginDispatch(routes, { prepare, notFound, onError });
 *   if (!dispatch(req, res)) app(req, res);
 */
import type { NextFunction, Request, Response } from "express";
import type { RouteEntry } from "../plugins/route-table";

export interface PluginDispatchHooks {
  /** Runs before the handler: what the app does for every request (Express's request setup, X-Request-Id). */
  prepare(req: Request, res: Response): void;
  /** The handler passed the request on (`next()`): what the app answers when no route matches. */
  notFound(req: Request, res: Response): void;
  /** The handler failed (`next(err)`, a throw or a rejected promise). */
  onError(err: unknown, req: Request, res: Response): void;
}

/** Prefixes whose mount pattern is plain text for path-to-regexp (no `:param`, `*`, `(`, `{`, `%`, …). */
const LITERAL_PREFIX = /^(?:\/[A-Za-z0-9._~-]+)+$/;
const SLASH = 0x2f;
const QUESTION = 0x3f;

/** True when `url`'s path is `prefix` or below it (`prefix/…`), query string allowed. */
function below(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  const c = url.charCodeAt(prefix.length);
  return Number.isNaN(c) || c === SLASH || c === QUESTION;
}

export function createPluginDispatch(routes: readonly RouteEntry[], hooks: PluginDispatchHooks): (req: Request, res: Response) => boolean {
  const direct = routes.filter((r) => LITERAL_PREFIX.test(r.prefix));
  return (req, res) => {
    const url = req.url;
    if (url.charCodeAt(0) !== SLASH) return false;
    const route = direct.find((r) => below(url, r.prefix));
    if (!route) return false;
    hooks.prepare(req, res);
    const rest = url.slice(route.prefix.length);
    req.originalUrl = url;
    req.baseUrl = route.prefix;
    req.url = rest.charCodeAt(0) === SLASH ? rest : `/${rest}`;
    req.params = {};
    let passed = false;
    const next: NextFunction = (err?: unknown) => {
      if (passed) return;
      passed = true;
      req.url = url;
      req.baseUrl = "";
      // As past the mount: an error goes to the error handler; `next()` (or "route") finds nothing else
      // below this prefix, so the JSON 404 — also for "router", where Express's final handler would answer an HTML 404.
      if (err && err !== "route" && err !== "router") hooks.onError(err, req, res);
      else hooks.notFound(req, res);
    };
    req.next = next;
    try {
      const result: unknown = route.handler(req, res, next);
      if (result instanceof Promise) result.catch((e: unknown) => next(e ?? new Error("Rejected promise")));
    } catch (e) {
      next(e);
    }
    return true;
  };
}
