/**
 * The gateway's Express app: its own routes (`GET /healthz`, `GET /api/status`
 * and `GET /metrics` guarded by `gateway.auth.token`, the `/ui` dashboard when given), then each plugin route mounted with
 * `app.use(prefix, handler)` — so the plugin sees URLs relative to its prefix and
 * `/hooksX` never reaches a plugin mounted on `/hooks` — then a JSON 404.
 * Routing is case-sensitive.
 *
 * What it returns is the request listener of the gateway's server: a request below
 * a plugin's prefix goes straight to the plugin (plugin-dispatch.ts: the same
 * hand-over as the mount, without walking the router), anything else to the
 * Express app (`.express`).
 */
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type NextFunction, type Request, type Response, type Router } from "express";
import type { HostLogger } from "../../host-contract/host-api";
import type { PluginReport } from "../plugins/plugin-loader";
import { bearerToken } from "./operator-token";
import { checkOperatorToken, createOperatorThrottle, operatorClient, type OperatorThrottle } from "./operator-throttle";
import { publicPluginReport } from "./public-plugin-report";
import type { RouteEntry } from "../plugins/route-table";
import { createPluginDispatch } from "./plugin-dispatch";
import { refuseForeignHosts, type DashboardHostRule } from "./dashboard-hosts";

/** Body of `GET /api/status` (without `ok`); plugin reports are shown without paths. */
export type GatewayStatus = Record<string, unknown> & { plugins?: readonly PluginReport[] };

export interface GatewayAppOptions {
  routes: readonly RouteEntry[];
  /** Operator token for `/api/*`; undefined disables the operator API (403). */
  authToken?: string;
  /** Body of `GET /api/status` (without `ok`); `plugins` go through publicPluginReport. */
  status: () => GatewayStatus;
  logger: HostLogger;
  /** Request ids of the gateway's own responses; default crypto.randomUUID. */
  idGen?: () => string;
  /**
   * True while the gateway drains before it stops: every response carries
   * `Connection: close` and `/healthz` answers 503 `shutting_down` (plugins
   * refuse their own requests on the host's `gateway: stopping` event).
   */
  isStopping?: () => boolean;
  /** Served at `GET /metrics` (operator token); absent → 404 like any unknown path. */
  metrics?: { readonly contentType: string; render(): Promise<string> };
  /** Express `trust proxy` (proxy-addr addresses, CIDRs or names); absent or empty: forwarded headers are ignored. */
  trustProxy?: readonly string[];
  /** Counts wrong operator tokens on `/api/*` and `/metrics`; give the dashboard the same one (default: a throttle of its own). */
  operatorThrottle?: OperatorThrottle;
  /** The dashboard's router, mounted at `/ui` before the plugin routes (give it the same `hosts`). */
  ui?: Router;
  /** Host names `/api/*` and `/metrics` answer (DNS-rebinding protection, dashboard-hosts.ts); absent: every Host. */
  hosts?: DashboardHostRule;
}

/** Retry-After of the gateway's own 503 while it stops (the hooks plugin sends the same). */
export const STOPPING_RETRY_AFTER_SECONDS = 5;

/** The gateway's request listener, with the Express app behind it (whose prototypes the server gives requests). */
export interface GatewayApp {
  (req: IncomingMessage, res: ServerResponse): void;
  readonly express: Express;
}

export function createGatewayApp(opts: GatewayAppOptions): GatewayApp {
  const app = express();
  // Every response carries X-Request-Id (SPEC §4.2); a plugin route may replace it with its own.
  const stamp = (res: Response): void => {
    res.setHeader("X-Request-Id", (opts.idGen ?? crypto.randomUUID)());
    if (opts.isStopping?.()) res.setHeader("Connection", "close");
  };
  const notFound = (_req: Request, res: Response): void => {
    res.status(404).json({ ok: false, code: "not_found", error: "No route matches this path." });
  };
  const onError = (err: unknown, req: Request, res: Response): void => {
    opts.logger.error("unhandled error in a route", { method: req.method, error: (err as Error)?.message ?? String(err) });
    if (res.headersSent) return;
    res.status(500).json({ ok: false, code: "internal_error", error: "Internal error." });
  };
  app.disable("x-powered-by");
  app.set("case sensitive routing", true);
  app.set("strict routing", false);
  if (opts.trustProxy && opts.trustProxy.length > 0) app.set("trust proxy", [...opts.trustProxy]);

  app.use((_req, res, next) => {
    stamp(res);
    next();
  });

  app.get("/healthz", (_req, res) => {
    if (opts.isStopping?.()) {
      res.status(503).setHeader("Retry-After", String(STOPPING_RETRY_AFTER_SECONDS));
      res.json({ ok: false, code: "shutting_down", error: "The gateway is shutting down; retry later." });
      return;
    }
    res.json({ ok: true });
  });

  const throttle = opts.operatorThrottle ?? createOperatorThrottle();
  /**
   * The operator surface: 403 without a configured gateway token, 401 without the
   * right one; a wrong token counts in the operator throttle, and a client it blocks
   * gets 429 with Retry-After whatever it sends.
   */
  const operatorOnly = (req: Request, res: Response, next: NextFunction) => {
    if (!opts.authToken) {
      res.status(403).json({ ok: false, code: "forbidden", error: "The operator API is disabled because gateway.auth.token is not set." });
      return;
    }
    const client = operatorClient(req);
    const token = bearerToken(req);
    const wait = throttle.blockedFor(client);
    const verdict = wait > 0 ? { kind: "blocked" as const, retryAfterSeconds: wait } : token ? checkOperatorToken(throttle, client, token, opts.authToken) : { kind: "wrong" as const };
    if (verdict.kind === "blocked") {
      res.status(429).setHeader("Retry-After", String(verdict.retryAfterSeconds));
      res.json({ ok: false, code: "too_many_requests", error: `Too many wrong operator tokens from this address; try again in ${verdict.retryAfterSeconds} seconds.` });
      return;
    }
    if (verdict.kind === "wrong") {
      res.status(401).json({ ok: false, code: "unauthorized", error: "A valid gateway token is required (Authorization: Bearer <gateway.auth.token>)." });
      return;
    }
    next();
  };
  // /metrics too: its wrong tokens count in the same operator throttle, so a rebound page could lock the operator out through it.
  const foreignHost = opts.hosts && refuseForeignHosts(opts.hosts, (_req, res, status, code, error) => void res.status(status).json({ ok: false, code, error }));
  if (foreignHost) app.use(["/api", "/metrics"], foreignHost);
  app.use("/api", operatorOnly);
  app.get("/api/status", (_req, res) => {
    const status = opts.status();
    res.json({ ok: true, ...status, ...(status.plugins ? { plugins: status.plugins.map(publicPluginReport) } : {}) });
  });

  const metrics = opts.metrics;
  if (metrics) {
    app.get("/metrics", operatorOnly, (_req, res, next) => {
      metrics.render().then((text) => void res.setHeader("Content-Type", metrics.contentType).send(text), next);
    });
  }

  if (opts.ui) app.use("/ui", opts.ui);

  for (const r of opts.routes) app.use(r.prefix, r.handler);

  app.use(notFound);
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => onError(err, req, res));

  const dispatch = createPluginDispatch(opts.routes, {
    prepare(req, res) {
      // What Express's app.handle does first (a no-op swap when the server already made them with these prototypes).
      Object.setPrototypeOf(req, app.request);
      Object.setPrototypeOf(res, app.response);
      req.res = res;
      res.req = req;
      res.locals ??= Object.create(null) as Response["locals"];
      stamp(res);
    },
    notFound,
    onError,
  });
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    if (!dispatch(req as Request, res as Response)) app(req, res);
  };
  return Object.assign(listener, { express: app });
}
