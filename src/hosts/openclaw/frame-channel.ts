/**
 * What OpenClaw's Control UI frame loads without a cookie. The tab's frame is sandboxed (an opaque origin): its
 * document comes with OpenClaw's frame grant (a cookie of the `/inbound-webhooks` route), but its own requests for
 * scripts, style sheets and its live feed are cross-site for cookies, and a browser that blocks third-party cookies
 * sends them none (headless Chromium 156 does, even in a persistent profile: every asset was a 401 and blocked). So
 * this route, `auth: "plugin"`, serves the frame:
 *
 * - `/inbound-webhooks-frame/assets/<file>`: the inspector's static files (no data; the embedded gateway serves
 *   them without a login too);
 * - `/inbound-webhooks-frame/live/<capability>/api/events?…`: the live feed, for a capability the page served
 *   under OpenClaw's gateway auth carries (an HMAC of its expiry under a key of this process, 12 h), answered
 *   with `Access-Control-Allow-Origin: *` (the capability is the credential: no cookie is read). An expired or
 *   forged one is 401; a gateway restart ends them all (the page says to reload).
 *
 * Anything else is 404; anything but GET and HEAD 405.
 */
import crypto from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HostLogger } from "../../host-contract/host-api";
import type { OperatorRouteRegistration } from "../../host-contract/operator-route";
import { writeError } from "../../host-contract/json-response";
import { pathBelow } from "../../host-contract/route-path";
import type { OpenClawHttpRoute } from "./openclaw-api";

/** The frame's cookie-free prefix (no overlap with `/inbound-webhooks`: OpenClaw matches prefixes by segment). */
export const FRAME_PREFIX = "/inbound-webhooks-frame";
/** How long a page's live-feed capability holds. */
export const FEED_CAPABILITY_MS = 12 * 3600_000;

export interface FeedCapability {
  /** A new capability, valid FEED_CAPABILITY_MS from now. */
  mint(): string;
  /** True while `token` is one this process minted and it has not expired. */
  valid(token: string): boolean;
}

export function createFeedCapability(now: () => number = Date.now): FeedCapability {
  const key = crypto.randomBytes(32);
  const sign = (exp: string) => crypto.createHmac("sha256", key).update(`live-feed ${exp}`).digest("base64url");
  return {
    mint() {
      const exp = String(now() + FEED_CAPABILITY_MS);
      return `${exp}.${sign(exp)}`;
    },
    valid(token) {
      const dot = token.indexOf(".");
      const exp = token.slice(0, dot);
      if (dot < 1 || !/^\d{1,15}$/.test(exp) || Number(exp) <= now()) return false;
      const given = Buffer.from(token.slice(dot + 1));
      const expected = Buffer.from(sign(exp));
      return given.length === expected.length && crypto.timingSafeEqual(given, expected);
    },
  };
}

/** The live-feed base a page gets (`<FRAME_PREFIX>/live/<capability>`): its feed opens at `<base>/api/events`. */
export function liveFeedBase(capability: FeedCapability): string {
  return `${FRAME_PREFIX}/live/${capability.mint()}`;
}

type Serve = (req: IncomingMessage, res: ServerResponse) => void;

export function frameChannel(opts: {
  pages: OperatorRouteRegistration;
  capability: FeedCapability;
  /** Where the pages are mounted (`/inbound-webhooks/ui`): the feed's rows link there. */
  inspectorPath: string;
  clientAddress: (req: IncomingMessage) => string;
  route: (path: string, auth: OpenClawHttpRoute["auth"], serve: Serve, logger: HostLogger) => OpenClawHttpRoute;
  logger: HostLogger;
}): OpenClawHttpRoute {
  const serve: Serve = (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD")
      return writeError(res, 405, "method_not_allowed", `Only GET and HEAD are allowed on ${FRAME_PREFIX}.`, { Allow: "GET, HEAD" });
    const url = req.url ?? "/";
    if (pathBelow(`${FRAME_PREFIX}/assets`, url) !== undefined && opts.pages.assets) return opts.pages.assets(req, res, { base: FRAME_PREFIX });
    const rest = pathBelow(`${FRAME_PREFIX}/live`, url) ?? "";
    const m = /^\/([0-9]+\.[A-Za-z0-9_-]+)\/api\/events(\?.*)?$/.exec(rest);
    if (m) {
      const token = m[1]!;
      if (!opts.capability.valid(token))
        return writeError(res, 401, "unauthorized", "This live feed's link has expired or is not this gateway's (it restarted); reload the page.");
      res.setHeader("Access-Control-Allow-Origin", "*");
      req.url = `${opts.inspectorPath}/api/events${m[2] ?? ""}`;
      return opts.pages.handler(req, res, {
        base: opts.inspectorPath,
        operator: { id: "gateway", canWrite: false, active: () => opts.capability.valid(token) },
        clientAddress: opts.clientAddress(req),
        framed: true,
      });
    }
    writeError(res, 404, "not_found", `No route matches this path (${FRAME_PREFIX} serves the Webhooks tab's assets and live feed).`);
  };
  return opts.route(FRAME_PREFIX, "plugin", serve, opts.logger);
}
