/**
 * The inspector as an operator route (host API 2.1, host-contract/operator-route.ts): the plugin's pages, assets
 * and live feed, the same in every host. The host authenticates the operator and says where it mounts the route
 * (`context.base`: `/ui` in the embedded gateway, `/inbound-webhooks/ui` inside OpenClaw), whether the login may
 * change anything (`operator.canWrite`) and, for a form it read to check its CSRF token, its fields.
 *
 * @example
 *   const route = createInspectorRoute({ inspector, pluginId: api.pluginId, logger });
 *   api.registerOperatorRoute?.(route);
 */
import express, { type Express, type NextFunction, type Request, type Response } from "express";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HostLogger } from "../host-contract/host-api";
import { OPERATOR_FORM_FIELDS, OPERATOR_FORM_LIMIT, type OperatorRouteContext, type OperatorRouteRegistration } from "../host-contract/operator-route";
import { sendOperatorError, setOperatorSecurityHeaders } from "../host-contract/operator-page";
import type { HookInspector } from "../core/inspection";
import { createAssetHandler } from "./assets";
import { createLiveFeed, type LiveFeedStats } from "./live-feed";
import { mountPages } from "./ui-pages";
import { operatorMethods } from "./operator-methods";
import { sendUiError } from "./ui-error";

export interface InspectorRouteOptions {
  inspector: HookInspector;
  pluginId: string;
  logger: HostLogger;
  /** Default Date.now. */
  now?: () => number;
  keepAliveMs?: number;
  assetsDir?: string;
}

export interface InspectorRoute extends OperatorRouteRegistration {
  /** The live feeds' state (the host's status answer carries it as `dashboard.liveFeeds`). */
  liveFeeds(): LiveFeedStats;
  close(): void;
}

/**
 * A path segment that is not valid percent-encoding (`<base>/deliveries/%E0%A4%A`): Express fails to decode the
 * route parameter and passes a URIError on. It is the client's mistake: 400 `invalid_path`, logged at debug
 * (never at error level, never the path itself).
 */
function malformedPath(logger: HostLogger) {
  return (err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof URIError)) return next(err);
    logger.debug("dashboard request with a path that is not valid percent-encoding", { method: req.method });
    sendUiError(req, res, 400, "invalid_path", "The path is not valid percent-encoding (a % must be followed by two hex digits of UTF-8).");
  };
}

/** The last resort: a failure of a page is logged and answered 500, never thrown at the host. */
function failed(logger: HostLogger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    logger.error("dashboard page failed", { method: req.method, error: (err as Error)?.message ?? String(err) });
    if (res.headersSent) return void res.end();
    sendUiError(req, res, 500, "internal_error", "Internal error.");
  };
}

/** What the pages read of the request (ui-pages.ts): Express keeps `res.locals` set before its app runs. */
function withLocals(res: ServerResponse, context: OperatorRouteContext): void {
  const r = res as ServerResponse & { locals?: Record<string, unknown> };
  r.locals = { ...(r.locals ?? {}), context, base: context.base };
}

export function createInspectorRoute(opts: InspectorRouteOptions): InspectorRoute {
  const feed = createLiveFeed({ keepAliveMs: opts.keepAliveMs });
  const serveAsset = createAssetHandler(opts.assetsDir);
  const form = express.urlencoded({ extended: false, limit: OPERATOR_FORM_LIMIT, parameterLimit: OPERATOR_FORM_FIELDS });
  const pages = express.Router({ caseSensitive: true });
  pages.use((req, res, next) => {
    if (req.method === "GET" || req.method === "HEAD") return next();
    // The host read the form to check its CSRF token: its fields are the body. Else read it here.
    const fields = res.locals.context.form;
    if (fields) {
      req.body = { ...fields };
      return next();
    }
    form(req, res, next);
  });
  mountPages(pages, { inspector: opts.inspector, pluginId: opts.pluginId, feed, now: opts.now ?? Date.now, logger: opts.logger });
  pages.use(malformedPath(opts.logger));
  pages.use(failed(opts.logger));

  const assets = express.Router({ caseSensitive: true });
  assets.get("/assets/:name", serveAsset);
  assets.use(malformedPath(opts.logger));
  assets.use((req: Request, res: Response) => sendUiError(req, res, 404, "not_found", "No dashboard asset has this name."));

  // One Express app per mount point (a host mounts the route at one base; tests may use several).
  const apps = new Map<string, Express>();
  const appFor = (base: string, router: express.Router): Express => {
    const key = `${router === pages ? "pages" : "assets"} ${base}`;
    let app = apps.get(key);
    if (!app) {
      app = express();
      app.disable("x-powered-by");
      app.set("case sensitive routing", true);
      app.use(base, router);
      app.use((req: Request, res: Response) => sendOperatorError(req, res, base, 404, "not_found", "No dashboard page has this path."));
      apps.set(key, app);
    }
    return app;
  };

  return {
    path: "/ui",
    handler(req: IncomingMessage, res: ServerResponse, context: OperatorRouteContext) {
      setOperatorSecurityHeaders(res, context.framed === true);
      withLocals(res, context);
      appFor(context.base, pages)(req as Request, res as Response);
    },
    assets(req, res, context) {
      setOperatorSecurityHeaders(res, false);
      (res as { locals?: Record<string, unknown> }).locals = { ...(res as { locals?: Record<string, unknown> }).locals, base: context.base };
      appFor(context.base, assets)(req as Request, res as Response);
    },
    status: () => ({ hooks: opts.inspector.summary(), dashboard: { liveFeeds: feed.stats() } }),
    // Replay (and what goes beside it) for a host whose page is read-only but which serves methods: OpenClaw's gateway methods.
    methods: operatorMethods({ inspector: opts.inspector, logger: opts.logger }),
    liveFeeds: () => feed.stats(),
    close: () => feed.closeAll(),
  };
}
