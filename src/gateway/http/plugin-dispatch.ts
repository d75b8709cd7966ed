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
 * case-sensitively (the app's routing is), for a route whose prefix is made only of
 * characters Express's path matcher reads literally, that no other route's prefix
 * nests in or under (one plugin may register `/a` and `/a/b`; Express would pass
 * from one to the other), that comes after no pattern prefix (`/:x` could match
 * first), and whose handler is not an error handler (four parameters, which Express
 * skips). Anything else returns false and goes to the Express app. The gateway's
 * own routes never collide with a plugin prefix (route-table.ts), so they can
 * never match a request taken here.
 *
 * @example
 *   const dispatch = createPluginDispatch(routes, { prepare, notFound, onError });
 *   if (!dispatch(req, res)) app(req, res);
 */
import type { NextFunction, Request, Response } from "express";
import { prefixesCollide, type RouteEntry } from "../plugins/route-table";

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

/** The routes a request can be handed to directly (see above), in their order. */
function directRoutes(routes: readonly RouteEntry[]): RouteEntry[] {
  const firstPattern = routes.findIndex((r) => !LITERAL_PREFIX.test(r.prefix));
  const before = firstPattern === -1 ? routes : routes.slice(0, firstPattern);
  return before.filter((r) => r.handler.length <= 3 && !routes.some((o) => o !== r && prefixesCollide(o.prefix, r.prefix)));
}

/** What Express's layer treats as a promise: anything with a `then` method. */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return v !== null && (typeof v === "object" || typeof v === "function") && typeof (v as { then?: unknown }).then === "function";
}

export function createPluginDispatch(routes: readonly RouteEntry[], hooks: PluginDispatchHooks): (req: Request, res: Response) => boolean {
  const direct = directRoutes(routes);
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
      // As past the mount: an error goes to the error handler (it only logs once the answer has started);
      // `next()` (or "route") finds nothing else below this prefix, so the JSON 404 — also for "router",
      // where Express's final handler would answer an HTML 404 — unless the handler already answered.
      if (err && err !== "route" && err !== "router") hooks.onError(err, req, res);
      else if (!res.headersSent) hooks.notFound(req, res);
    };
    req.next = next;
    try {
      const result: unknown = route.handler(req, res, next);
      if (isThenable(result)) result.then(undefined, (e: unknown) => next(e || new Error("Rejected promise")));
    } catch (e) {
      next(e);
    }
    return true;
  };
}
