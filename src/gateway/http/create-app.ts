/**
 * The gateway's request listener. A request below a plugin route's prefix (src/host-contract/route-path.ts:
 * by whole segments, case-sensitively, so `/hooksX` never reaches a plugin on `/hooks`) goes to that plugin's
 * node-level handler (host API 2.0) as it arrived, with the client's address (`gateway.trustProxy`); plugin
 * prefixes never collide with the gateway's own routes or each other (route-table.ts), so no other route could
 * have taken it. Anything else goes to the gateway's Express app (`.express`): its own routes (`GET /healthz`,
 * `GET /api/status` and `GET /metrics` guarded by `gateway.auth.token`, the `/ui` dashboard when given), then a
 * JSON 404. Routing is case-sensitive. Every error answer of its own is written by the hosts' one writer
 * (src/host-contract/json-response.ts).
 */
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import express, { type Express, type NextFunction, type Request, type Response, type Router } from "express";
import { clientAddressResolver } from "../../host-contract/client-address";
import type { HostLogger } from "../../host-contract/host-api";
import { pathBelow } from "../../host-contract/route-path";
import { writeError, writeJson } from "../../host-contract/json-response";
import type { PluginReport } from "../plugins/plugin-loader";
import { bearerToken } from "./operator-token";
import { checkOperatorToken, createOperatorThrottle, operatorClient, type OperatorThrottle } from "./operator-throttle";
import { publicPluginReport } from "./public-plugin-report";
import type { RouteEntry } from "../plugins/route-table";
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
  const stamp = (res: ServerResponse): void => {
    res.setHeader("X-Request-Id", (opts.idGen ?? crypto.randomUUID)());
    if (opts.isStopping?.()) res.setHeader("Connection", "close");
  };
  const notFound = (_req: Request, res: Response): void => writeError(res, 404, "not_found", "No route matches this path.");
  const onError = (err: unknown, method: string | undefined, res: ServerResponse): void => {
    opts.logger.error("unhandled error in a route", { method, error: (err as Error)?.message ?? String(err) });
    if (res.headersSent) return;
    writeError(res, 500, "internal_error", "Internal error.");
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
      writeError(res, 503, "shutting_down", "The gateway is shutting down; retry later.", { "Retry-After": String(STOPPING_RETRY_AFTER_SECONDS) });
      return;
    }
    writeJson(res, 200, { ok: true });
  });

  const throttle = opts.operatorThrottle ?? createOperatorThrottle();
  /**
   * The operator surface: 403 without a configured gateway token, 401 without the
   * right one; a wrong token counts in the operator throttle, and a client it blocks
   * gets 429 with Retry-After whatever it sends.
   */
  const operatorOnly = (req: Request, res: Response, next: NextFunction) => {
    if (!opts.authToken) {
      writeError(res, 403, "forbidden", "The operator API is disabled because gateway.auth.token is not set.");
      return;
    }
    const client = operatorClient(req);
    const token = bearerToken(req);
    const wait = throttle.blockedFor(client);
    const verdict =
      wait > 0
        ? { kind: "blocked" as const, retryAfterSeconds: wait }
        : token
          ? checkOperatorToken(throttle, client, token, opts.authToken)
          : { kind: "wrong" as const };
    if (verdict.kind === "blocked") {
      const seconds = verdict.retryAfterSeconds;
      writeError(res, 429, "too_many_requests", `Too many wrong operator tokens from this address; try again in ${seconds} seconds.`, {
        "Retry-After": String(seconds),
      });
      return;
    }
    if (verdict.kind === "wrong") {
      writeError(res, 401, "unauthorized", "A valid gateway token is required (Authorization: Bearer <gateway.auth.token>).");
      return;
    }
    next();
  };
  // /metrics too: its wrong tokens count in the same operator throttle, so a rebound page could lock the operator out through it.
  const foreignHost = opts.hosts && refuseForeignHosts(opts.hosts, (_req, res, status, code, error) => writeError(res, status, code, error));
  if (foreignHost) app.use(["/api", "/metrics"], foreignHost);
  app.use("/api", operatorOnly);
  app.get("/api/status", (_req, res) => {
    const status = opts.status();
    writeJson(res, 200, { ok: true, ...status, ...(status.plugins ? { plugins: status.plugins.map(publicPluginReport) } : {}) });
  });

  const metrics = opts.metrics;
  if (metrics) {
    app.get("/metrics", operatorOnly, (_req, res, next) => {
      metrics.render().then((text) => void res.setHeader("Content-Type", metrics.contentType).send(text), next);
    });
  }

  if (opts.ui) app.use("/ui", opts.ui);

  app.use(notFound);
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => onError(err, req.method, res));

  const clientAddress = clientAddressResolver(opts.trustProxy ?? []);
  const listener = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    const route = opts.routes.find((r) => pathBelow(r.prefix, url) !== undefined);
    if (!route) return app(req, res);
    stamp(res);
    try {
      route.handler(req, res, { clientAddress: clientAddress(req) });
    } catch (e) {
      // The contract says a handler does not throw; one that does still gets an answer (and the log its reason).
      onError(e, req.method, res);
    }
  };
  return Object.assign(listener, { express: app });
}
