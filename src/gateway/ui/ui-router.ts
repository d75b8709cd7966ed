/**
 * `/ui`, the operator dashboard (SPEC §13): security headers on every answer,
 * the static assets, the login form, then — for a valid session cookie or
 * `Authorization: Bearer <gateway.auth.token>` only — the pages (ui-pages.ts).
 * Without a credential a page shows the login form (401) and `/ui/api/*`
 * answers 401 JSON; no data is ever rendered. Every POST of a cookie session
 * needs the session's CSRF token and a same-origin request (else 403).
 *
 * @example
 *   const ui = createDashboard({ authToken, inspectors: plugins.inspectors, logger });
 *   app.use("/ui", ui.router);   // …and ui.close() when the gateway stops
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { HostLogger } from "../../host-contract/host-api";
import type { HookInspector } from "../../host-contract/inspection";
import type { JournalEntry } from "../journal/journal";
import { checkOperatorToken, createOperatorThrottle, operatorClient, type OperatorThrottle } from "../http/operator-throttle";
import { createAssetHandler } from "./assets";
import { createLiveFeed, type LiveFeedStats } from "./live-feed";
import { createUiSessionStore, type UiSessionStore } from "./ui-sessions";
import { isUiApiRequest, sendUiError } from "./ui-error";
import { mountPages } from "./ui-pages";
import { authenticate, clearedSessionCookie, hasCsrfToken, isSameOrigin, sessionCookie, type UiPrincipal } from "./ui-auth";
import { renderLogin } from "./views/login-view";
import { createLoginLinkHandler, type LoginCodes } from "./login-codes";
import { refuseForeignHosts, type DashboardHostRule } from "../http/dashboard-hosts";

export const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
/** Bodies of the dashboard's forms (a dry-run payload is the largest). */
const FORM_LIMIT = "1mb";
const FORM_FIELDS = 50;

export interface DashboardOptions {
  /** `gateway.auth.token`; undefined disables the dashboard (403). */
  authToken?: string;
  inspectors: ReadonlyArray<{ pluginId: string; inspector: HookInspector }>;
  logger: HostLogger;
  assetsDir?: string;
  sessions?: UiSessionStore;
  /** Counts wrong operator tokens of every carrier; share the gateway's (`/api`, `/metrics`) so one throttle covers all. */
  throttle?: OperatorThrottle;
  /** Default Date.now. */
  now?: () => number;
  keepAliveMs?: number;
  /** The newest journal entries, for a delivery's journal effects. */
  journal?: () => readonly JournalEntry[];
  /** One-time login codes (`/ui/login?code=…`, printed by the demo start); none accepted when absent. */
  loginCodes?: LoginCodes;
  /** Host names the dashboard answers (DNS-rebinding protection, checked before anything else); absent: every Host. */
  hosts?: DashboardHostRule;
}

export interface Dashboard {
  router: Router;
  /** Ends the live feeds (call before the server closes). */
  close(): void;
  /** The live feeds' state, for `/api/status`. */
  liveFeeds(): LiveFeedStats;
}

declare module "express-serve-static-core" {
  interface Locals {
    principal?: UiPrincipal;
  }
}

/**
 * A `next` target after login: a dashboard path only (never another host), with the
 * characters of a path and query (`+` is a space in a form's query: `?search=deal+won`).
 */
function safeNext(value: unknown): string {
  return typeof value === "string" && /^\/ui\/[A-Za-z0-9/_?=&%.~+*!'(),;:@$-]*$/.test(value) && !value.includes("//") ? value : "/ui/deliveries";
}

export function createDashboard(opts: DashboardOptions): Dashboard {
  const sessions = opts.sessions ?? createUiSessionStore();
  const throttle = opts.throttle ?? createOperatorThrottle();
  const now = opts.now ?? Date.now;
  const feed = createLiveFeed({ keepAliveMs: opts.keepAliveMs });
  const router = express.Router({ caseSensitive: true });
  const form = express.urlencoded({ extended: false, limit: FORM_LIMIT, parameterLimit: FORM_FIELDS });

  router.use((_req, res, next) => {
    res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  if (opts.hosts) router.use(refuseForeignHosts(opts.hosts, sendUiError, (req) => opts.logger.debug("dashboard request refused: Host not allowed", { method: req.method, client: operatorClient(req) })));
  router.get("/assets/:name", createAssetHandler(opts.assetsDir));

  const token = opts.authToken;
  if (!token) {
    router.use((req, res) => sendUiError(req, res, 403, "forbidden", "The dashboard is disabled because gateway.auth.token is not set."));
    router.use(malformedPath(opts.logger));
    return { router, close: () => feed.closeAll(), liveFeeds: () => feed.stats() };
  }

  /** 429 for a client the operator throttle blocks: JSON under /ui/api, the login form (saying so) elsewhere. */
  const refuseBlocked = (req: Request, res: Response, wait: number, next: string): void => {
    res.setHeader("Retry-After", String(wait));
    const message = `Too many wrong operator tokens from this address; try again in ${wait} seconds.`;
    if (isUiApiRequest(req)) return sendUiError(req, res, 429, "too_many_requests", message);
    res.status(429).type("html").send(renderLogin({ next, error: message }));
  };

  const loginLink = createLoginLinkHandler({ codes: opts.loginCodes, throttle, sessions, logger: opts.logger, refuseBlocked });
  router.get("/login", (req, res) => {
    // Only a GET spends a code: a HEAD (a link checker probing the URL) gets the form's headers and changes nothing.
    if (typeof req.query.code === "string" && req.method === "GET") return loginLink(req, res, req.query.code);
    const verdict = authenticate(req, token, sessions, throttle);
    if (verdict.kind === "principal") return res.redirect(303, safeNext(req.query.next));
    if (verdict.kind === "blocked") return refuseBlocked(req, res, verdict.retryAfterSeconds, safeNext(req.query.next));
    res.type("html").send(renderLogin({ next: safeNext(req.query.next) }));
  });
  router.post("/login", form, (req, res) => {
    const client = operatorClient(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const next = safeNext(body.next);
    const wait = throttle.blockedFor(client);
    if (wait > 0) return refuseBlocked(req, res, wait, next);
    if (!isSameOrigin(req)) return sendUiError(req, res, 403, "cross_origin", "The login form must be sent from the dashboard itself.");
    const sent = typeof body.token === "string" ? body.token.trim() : "";
    if (checkOperatorToken(throttle, client, sent, token).kind !== "ok") {
      opts.logger.warn("dashboard login refused", { client });
      res.status(401).type("html").send(renderLogin({ next, error: "The token is not valid." }));
      return;
    }
    const session = sessions.create();
    opts.logger.info("dashboard login", { client });
    res.setHeader("Set-Cookie", sessionCookie(req, session, sessions.ttlMs));
    res.redirect(303, next);
  });

  router.use((req, res, next) => {
    const verdict = authenticate(req, token, sessions, throttle);
    if (verdict.kind === "principal") {
      res.locals.principal = verdict.principal;
      return next();
    }
    const after = req.method === "GET" ? safeNext(req.originalUrl) : "/ui/deliveries";
    if (verdict.kind === "blocked") return refuseBlocked(req, res, verdict.retryAfterSeconds, after);
    if (verdict.kind === "wrong") opts.logger.warn("dashboard bearer token refused", { client: operatorClient(req) });
    if (isUiApiRequest(req)) {
      return sendUiError(req, res, 401, "unauthorized", "Log in to the dashboard, or send Authorization: Bearer <gateway.auth.token>.");
    }
    res.status(401).type("html").send(renderLogin({ next: after }));
  });

  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    form(req, res, (err?: unknown) => {
      if (err) return next(err);
      const p = res.locals.principal!;
      if (p.kind === "bearer") return next();
      if (!isSameOrigin(req)) return sendUiError(req, res, 403, "cross_origin", "This request must come from the dashboard's own pages (same origin).");
      if (!hasCsrfToken(req, p.session)) return sendUiError(req, res, 403, "csrf_token_invalid", "This form is missing its CSRF token or the token is stale; reload the page and try again.");
      next();
    });
  });

  router.post("/logout", (req, res) => {
    const p = res.locals.principal!;
    if (p.kind === "session") sessions.delete(p.session.id);
    res.setHeader("Set-Cookie", clearedSessionCookie(req));
    res.redirect(303, "/ui/login");
  });

  // Answered only while the request's login holds (401 JSON otherwise, above): the Deliveries page asks when its live
  // feed is refused, to tell a tab whose session ended (log in again) from a gateway that is away or busy (try again).
  router.get("/api/session", (_req, res) => res.json({ ok: true }));

  mountPages(router, { inspectors: opts.inspectors, feed, sessions, now, logger: opts.logger, ...(opts.journal ? { journal: opts.journal } : {}) });
  router.use(unreadableForm(opts.logger));
  router.use(malformedPath(opts.logger));
  return { router, close: () => feed.closeAll(), liveFeeds: () => feed.stats() };
}

/**
 * A dashboard form the body parser could not read is the client's mistake, never a
 * 500: over the size or field limit → 413 `payload_too_large`; a charset other than
 * UTF-8 / ISO-8859-1 or an unknown `Content-Encoding` → 415 `unsupported_media_type`;
 * any other unreadable body (a damaged gzip stream, a wrong Content-Length) → 400
 * `invalid_request`. Logged at debug, without the body.
 */
function unreadableForm(logger: HostLogger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    const { type, status, expose } = (err ?? {}) as { type?: unknown; status?: unknown; expose?: unknown };
    if (type === "entity.too.large" || type === "parameters.too.many") {
      return sendUiError(req, res, 413, "payload_too_large", `A dashboard form may be at most ${FORM_LIMIT} with at most ${FORM_FIELDS} fields.`);
    }
    // The body parser's refusals are http-errors with a 4xx status and `expose` (a zlib error of a damaged body has no `type`).
    if (expose !== true || typeof status !== "number" || status < 400 || status > 499) return next(err);
    logger.debug("dashboard form body refused", { method: req.method, status, ...(typeof type === "string" ? { type } : {}) });
    if (type === "charset.unsupported" || type === "encoding.unsupported") {
      return sendUiError(req, res, 415, "unsupported_media_type", "A dashboard form must be application/x-www-form-urlencoded in UTF-8, without a Content-Encoding other than gzip or deflate.");
    }
    sendUiError(req, res, 400, "invalid_request", "The form's body could not be read (a damaged compressed body, or a Content-Length that does not match it).");
  };
}

/**
 * A path segment that is not valid percent-encoding (`/ui/deliveries/%E0%A4%A`,
 * `/ui/assets/%E0`): Express fails to decode the route parameter and passes a
 * URIError on. It is the client's mistake, for anonymous clients as well: 400
 * `invalid_path`, logged at debug (never at error level, never the path itself).
 */
function malformedPath(logger: HostLogger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof URIError)) return next(err);
    logger.debug("dashboard request with a path that is not valid percent-encoding", { method: req.method });
    sendUiError(req, res, 400, "invalid_path", "The path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8).");
  };
}
