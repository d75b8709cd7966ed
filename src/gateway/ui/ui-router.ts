/**
 * `/ui`, the embedded gateway's operator login (SPEC §13) in front of the plugins' operator routes (host API 2.1,
 * host-contract/operator-route.ts): security headers on every answer, the route's static assets, the login form
 * and one-time login link, then — for a valid session cookie or `Authorization: Bearer <gateway.auth.token>`
 * only — the operator route registered at `/ui` (the inspector's pages), handed the request as it arrived with
 * who the operator is. Without a credential a page shows the login form (401) and `/ui/api/*` answers 401 JSON;
 * nothing of the route runs. Every POST of a cookie session needs the session's CSRF token and a same-origin
 * request (else 403), checked here before the route sees it.
 *
 * @example
 *   const ui = createDashboard({ authToken, operatorRoutes: plugins.operatorRoutes, logger });
 *   app.use("/ui", ui.router);   // …and ui.close() when the gateway stops
 */
import express, { type NextFunction, type Request, type Response, type Router } from "express";
import type { HostLogger } from "../../host-contract/host-api";
import type { JournalEntry } from "../journal/journal";
import { checkOperatorToken, createOperatorThrottle, operatorClient, type OperatorThrottle } from "../http/operator-throttle";
import { createUiSessionStore, type UiSessionStore } from "./ui-sessions";
import { html } from "../../host-contract/html";
import { isOperatorApiRequest, operatorPage, sendOperatorError, setOperatorSecurityHeaders } from "../../host-contract/operator-page";
import { OPERATOR_FORM_FIELDS, OPERATOR_FORM_LIMIT, type OperatorPrincipal, type OperatorRouteRegistration } from "../../host-contract/operator-route";
import { authenticate, clearedSessionCookie, hasCsrfToken, isSameOrigin, sessionCookie, type UiPrincipal } from "./ui-auth";
import { renderLogin } from "./views/login-view";
import { createLoginLinkHandler, type LoginCodes } from "./login-codes";
import { refuseForeignHosts, type DashboardHostRule } from "../http/dashboard-hosts";

const BASE = "/ui";
const isUiApiRequest = (req: Request): boolean => isOperatorApiRequest(req, BASE);
const refuseUi = (req: Request, res: Response, status: number, code: string, message: string): void => sendOperatorError(req, res, BASE, status, code, message);

export interface DashboardOptions {
  /** `gateway.auth.token`; undefined disables the dashboard (403). */
  authToken?: string;
  /** The operator routes the plugins registered (host API 2.1): the first at `/ui` serves the pages; none, every page says so. */
  operatorRoutes: ReadonlyArray<{ pluginId: string; route: OperatorRouteRegistration }>;
  logger: HostLogger;
  sessions?: UiSessionStore;
  /** Counts wrong operator tokens of every carrier; share the gateway's (`/api`, `/metrics`) so one throttle covers all. */
  throttle?: OperatorThrottle;
  /** The newest journal entries, for a delivery's journal effects. */
  journal?: () => readonly JournalEntry[];
  /** One-time login codes (`/ui/login?code=…`, printed by the demo start); none accepted when absent. */
  loginCodes?: LoginCodes;
  /** Host names the dashboard answers (DNS-rebinding protection, checked before anything else); absent: every Host. */
  hosts?: DashboardHostRule;
}

export interface Dashboard {
  router: Router;
  /** Ends the operator route's long-lived answers (its live feeds; call before the server closes). */
  close(): void;
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
  const pages = opts.operatorRoutes.find((r) => r.route.path === BASE);
  const close = () => pages?.route.close?.();
  const router = express.Router({ caseSensitive: true });
  const form = express.urlencoded({ extended: false, limit: OPERATOR_FORM_LIMIT, parameterLimit: OPERATOR_FORM_FIELDS });

  router.use((_req, res, next) => {
    setOperatorSecurityHeaders(res);
    next();
  });
  if (opts.hosts)
    router.use(
      refuseForeignHosts(opts.hosts, refuseUi, (req) =>
        opts.logger.debug("dashboard request refused: Host not allowed", { method: req.method, client: operatorClient(req) }),
      ),
    );
  // The route's static files carry no data: served without a login (the login page uses the style sheet).
  const assets = pages?.route.assets;
  if (assets) router.use("/assets", (req, res) => assets(Object.assign(req, { url: req.originalUrl }), res, { base: BASE }));

  const token = opts.authToken;
  if (!token) {
    router.use((req, res) => refuseUi(req, res, 403, "forbidden", "The dashboard is disabled because gateway.auth.token is not set."));
    return { router, close };
  }

  /** 429 for a client the operator throttle blocks: JSON under /ui/api, the login form (saying so) elsewhere. */
  const refuseBlocked = (req: Request, res: Response, wait: number, next: string): void => {
    res.setHeader("Retry-After", String(wait));
    const message = `Too many wrong operator tokens from this address; try again in ${wait} seconds.`;
    if (isUiApiRequest(req)) return refuseUi(req, res, 429, "too_many_requests", message);
    res
      .status(429)
      .type("html")
      .send(renderLogin({ next, error: message }));
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
    if (!isSameOrigin(req)) return refuseUi(req, res, 403, "cross_origin", "The login form must be sent from the dashboard itself.");
    const sent = typeof body.token === "string" ? body.token.trim() : "";
    if (checkOperatorToken(throttle, client, sent, token).kind !== "ok") {
      opts.logger.warn("dashboard login refused", { client });
      res
        .status(401)
        .type("html")
        .send(renderLogin({ next, error: "The token is not valid." }));
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
      return refuseUi(req, res, 401, "unauthorized", "Log in to the dashboard, or send Authorization: Bearer <gateway.auth.token>.");
    }
    res
      .status(401)
      .type("html")
      .send(renderLogin({ next: after }));
  });

  router.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    form(req, res, (err?: unknown) => {
      if (err) return next(err);
      const p = res.locals.principal!;
      if (p.kind === "bearer") return next();
      if (!isSameOrigin(req)) return refuseUi(req, res, 403, "cross_origin", "This request must come from the dashboard's own pages (same origin).");
      if (!hasCsrfToken(req, p.session))
        return refuseUi(req, res, 403, "csrf_token_invalid", "This form is missing its CSRF token or the token is stale; reload the page and try again.");
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

  if (!pages) noOperatorRoute(router);
  else {
    const route = pages.route;
    router.use((req, res) => {
      const p = res.locals.principal!;
      const operator: OperatorPrincipal =
        p.kind === "session"
          ? {
              id: `session:${p.session.id}`,
              csrf: p.session.csrf,
              canWrite: true,
              active: () => sessions.get(p.session.id) !== undefined,
              logoutPath: `${BASE}/logout`,
              loginPath: `${BASE}/login`,
              sessionCheckPath: `${BASE}/api/session`,
            }
          : { id: "bearer", canWrite: true, active: () => true, loginPath: `${BASE}/login`, sessionCheckPath: `${BASE}/api/session` };
      const form = req.method === "GET" || req.method === "HEAD" ? undefined : ((req.body ?? {}) as Record<string, unknown>);
      // The route is handed the request as it arrived (host API 2.1: req.url with the base).
      route.handler(Object.assign(req, { url: req.originalUrl }), res, {
        base: BASE,
        operator,
        clientAddress: operatorClient(req),
        cli: "gateway webhooks",
        ...(form ? { form } : {}),
        ...(opts.journal ? { journal: opts.journal } : {}),
      });
    });
  }
  router.use(unreadableForm(opts.logger));
  return { router, close };
}

/** Without a plugin's operator route at `/ui` (hooks off): every page says so plainly, and `/ui/api/*` answers 404. */
function noOperatorRoute(router: Router): void {
  router.get(["/deliveries", "/deliveries/:id", "/mappings", "/overview"], (_req, res) => {
    res.type("html").send(
      operatorPage({
        base: BASE,
        title: "No delivery data",
        content: html`<p id="no-inspector">No plugin registered an inspector, so there are no deliveries, runs or mappings to show. Enable the inbound-webhooks plugin (<code>gateway plugins list</code>) with <code>hooks.enabled: true</code>.</p>`,
      }),
    );
  });
  router.get("/", (_req, res) => res.redirect(303, `${BASE}/deliveries`));
  router.use("/api", (req, res) => refuseUi(req, res, 404, "no_inspector", "No plugin registered an inspector."));
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
      return refuseUi(
        req,
        res,
        413,
        "payload_too_large",
        `A dashboard form may be at most ${OPERATOR_FORM_LIMIT} with at most ${OPERATOR_FORM_FIELDS} fields.`,
      );
    }
    // The body parser's refusals are http-errors with a 4xx status and `expose` (a zlib error of a damaged body has no `type`).
    if (expose !== true || typeof status !== "number" || status < 400 || status > 499) return next(err);
    logger.debug("dashboard form body refused", { method: req.method, status, ...(typeof type === "string" ? { type } : {}) });
    if (type === "charset.unsupported" || type === "encoding.unsupported") {
      return refuseUi(
        req,
        res,
        415,
        "unsupported_media_type",
        "A dashboard form must be application/x-www-form-urlencoded in UTF-8, without a Content-Encoding other than gzip or deflate.",
      );
    }
    refuseUi(req, res, 400, "invalid_request", "The form's body could not be read (a damaged compressed body, or a Content-Length that does not match it).");
  };
}
