/**
 * The plugin's operator surface inside OpenClaw (SPEC §13, §15), one route of OpenClaw's own gateway auth:
 * `api.registerHttpRoute({ path: "/inbound-webhooks", match: "prefix", auth: "gateway" })` — the gateway token as
 * Bearer, or the read-only grant OpenClaw gives its Control UI's frame. It has a prefix of its own because
 * OpenClaw refuses overlapping routes of different auth (the hooks route, `/webhooks`, is `auth: "plugin"`).
 *
 * - `/inbound-webhooks/metrics`: Prometheus text of this process — the plugin's instruments (its hook counters,
 *   host contract `metrics`) and the process metrics — what the embedded gateway's `/metrics` serves.
 * - `/inbound-webhooks/api/status`: `{ ok: true, hooks, dashboard }`, the counts of the plugin's operator routes.
 * - `/inbound-webhooks/ui/…`: the plugin's operator route at `/ui` (the inspector's pages), GET and HEAD only
 *   (`operator.canWrite` false: OpenClaw's frame grant is `operator.read`; replay is offered as the
 *   `openclaw gateway call inbound-webhooks.deliveries.replay` command of the gateway method, gateway-methods.ts,
 *   and the dry run as `openclaw inbound-webhooks test`); framed by OpenClaw's own origin (the Control UI tab,
 *   plugin-entry.ts). Its scripts, style sheets and live feed load from the cookie-free frame channel
 *   (frame-channel.ts, `/inbound-webhooks-frame`), as the sandboxed frame's own requests may carry no cookie.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HostLogger } from "../../host-contract/host-api";
import type { PrometheusMetrics } from "../../host-contract/prometheus-metrics";
import type { OperatorRouteRegistration } from "../../host-contract/operator-route";
import { writeError, writeJson } from "../../host-contract/json-response";
import { pathBelow } from "../../host-contract/route-path";
import type { OpenClawHttpRoute } from "./openclaw-api";
import { createFeedCapability, FRAME_PREFIX, frameChannel, liveFeedBase } from "./frame-channel";

/** The operator surface's prefix inside OpenClaw. */
export const OPERATOR_PREFIX = "/inbound-webhooks";
/** The Control UI tab's frame: the inspector's pages. */
export const INSPECTOR_PATH = `${OPERATOR_PREFIX}/ui`;

/** The client's address the route hands on (OpenClaw's trusted-proxy rule, http-route.ts). */
type AddressOf = (req: IncomingMessage) => string;

/**
 * The operator surface's routes: `/inbound-webhooks` (`auth: "gateway"`) and, with the inspector, its frame's
 * cookie-free channel `/inbound-webhooks-frame` (`auth: "plugin"`, frame-channel.ts).
 */
export function operatorSurfaceRoutes(opts: {
  routes: readonly OperatorRouteRegistration[];
  registry: PrometheusMetrics;
  clientAddress: AddressOf;
  logger: HostLogger;
  /** The command that calls an operator method through the gateway, when the methods are OpenClaw gateway methods (gateway-methods.ts). */
  methodCommand?: (name: string, params: Readonly<Record<string, unknown>>) => string;
}): OpenClawHttpRoute[] {
  const pages = opts.routes.find((r) => r.path === "/ui");
  const capability = createFeedCapability();
  const status = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    for (const r of opts.routes) for (const [k, v] of Object.entries(r.status?.() ?? {})) if (!Object.hasOwn(out, k)) out[k] = v;
    return out;
  };
  const readOnly = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (req.method === "GET" || req.method === "HEAD") return true;
    writeError(res, 405, "method_not_allowed", `Only GET and HEAD are allowed on ${OPERATOR_PREFIX}.`, { Allow: "GET, HEAD" });
    return false;
  };
  const serve = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    const path = pathBelow(OPERATOR_PREFIX, url) ?? "";
    if (path === "/metrics") {
      if (!readOnly(req, res)) return;
      void opts.registry.render().then(
        (text) => {
          res.statusCode = 200;
          res.setHeader("Content-Type", opts.registry.contentType);
          res.setHeader("Cache-Control", "no-store");
          res.end(req.method === "HEAD" ? undefined : text);
        },
        (e: unknown) => {
          opts.logger.error("metrics could not be rendered", { error: (e as Error)?.message ?? String(e) });
          writeError(res, 500, "internal_error", "Internal error.");
        },
      );
      return;
    }
    if (path === "/api/status") {
      if (readOnly(req, res)) writeJson(res, 200, { ok: true, ...status() });
      return;
    }
    if (pages && pathBelow(INSPECTOR_PATH, url) !== undefined) {
      if (pathBelow(`${INSPECTOR_PATH}/assets`, url) !== undefined && pages.assets) return pages.assets(req, res, { base: INSPECTOR_PATH });
      pages.handler(req, res, {
        base: INSPECTOR_PATH,
        operator: { id: "gateway", canWrite: false, active: () => true },
        clientAddress: opts.clientAddress(req),
        framed: true,
        cli: "openclaw inbound-webhooks",
        assetsBase: `${FRAME_PREFIX}/assets`,
        liveFeedBase: liveFeedBase(capability),
        ...(opts.methodCommand ? { methodCommand: opts.methodCommand } : {}),
      });
      return;
    }
    writeError(res, 404, "not_found", `No route matches this path (${OPERATOR_PREFIX}/ui, /metrics and /api/status are served here).`);
  };
  const surface = openClawNodeRoute(OPERATOR_PREFIX, "gateway", serve, opts.logger);
  if (!pages) return [surface];
  const frame = frameChannel({
    pages,
    capability,
    inspectorPath: INSPECTOR_PATH,
    clientAddress: opts.clientAddress,
    route: openClawNodeRoute,
    logger: opts.logger,
  });
  return [surface, frame];
}

/** A prefix route of OpenClaw's whose handler resolves once the answer is written (or the client went); a throw is a 500, logged. */
export function openClawNodeRoute(
  path: string,
  auth: OpenClawHttpRoute["auth"],
  serve: (req: IncomingMessage, res: ServerResponse) => void,
  logger: HostLogger,
): OpenClawHttpRoute {
  return {
    path,
    match: "prefix",
    auth,
    handler: (req, res) =>
      new Promise<boolean>((resolve) => {
        res.once("close", () => resolve(true));
        res.once("finish", () => resolve(true));
        try {
          serve(req, res);
        } catch (e) {
          logger.error("operator route failed", { error: (e as Error)?.message ?? String(e) });
          if (!res.headersSent) writeError(res, 500, "internal_error", "Internal error.");
          else res.end();
        }
      }),
  };
}
