/**
 * One-time login codes for `/ui` (SPEC §2.2): the demo start prints a link
 * `/ui/login?code=<code>` that logs the browser in and opens the deliveries page —
 * never the operator token itself. A code is 32 random bytes (base64url), valid for
 * `ttlMs` (default 5 minutes) and for one use; kept in memory only, as its SHA-256
 * (a restart forgets every code). A wrong, used or expired code counts as a wrong
 * operator token in the operator throttle (src/gateway/http/operator-throttle.ts).
 *
 * @example
 *   const codes = createLoginCodes();
 *   const { code } = codes.issue();   // print `${url}/ui/login?code=${code}`
 *   codes.consume(code);              // true once, then false
 */
import crypto from "node:crypto";
import type { Request, Response } from "express";
import type { HostLogger } from "../../host-contract/host-api";
import { operatorClient, type OperatorThrottle } from "../http/operator-throttle";
import { sessionCookie } from "./ui-auth";
import type { UiSessionStore } from "./ui-sessions";
import { html } from "../../host-contract/html";
import { operatorPage } from "../../host-contract/operator-page";
import { renderLogin } from "./views/login-view";

export const DEFAULT_LOGIN_CODE_TTL_MS = 5 * 60 * 1000;
/** Codes outstanding at once (the oldest goes first): one per start, so a handful is plenty. */
const MAX_CODES = 16;

export interface LoginCodesOptions {
  ttlMs?: number;
  /** Default Date.now. */
  now?: () => number;
  /** Default 32 random bytes, base64url. */
  randomCode?: () => string;
}

export interface LoginCodes {
  readonly ttlMs: number;
  /** A new code and when it stops working (ms since the epoch). */
  issue(): { code: string; expiresAt: number };
  /** True (once) for a code that was issued and has not expired or been used; the code is spent either way. */
  consume(code: string): boolean;
}

const digest = (code: string) => crypto.createHash("sha256").update(code).digest("hex");

export function createLoginCodes(opts: LoginCodesOptions = {}): LoginCodes {
  const ttlMs = opts.ttlMs ?? DEFAULT_LOGIN_CODE_TTL_MS;
  const now = opts.now ?? Date.now;
  const randomCode = opts.randomCode ?? (() => crypto.randomBytes(32).toString("base64url"));
  /** SHA-256 of a code → when it expires. */
  const codes = new Map<string, number>();
  return {
    ttlMs,
    issue() {
      const t = now();
      for (const [key, expiresAt] of codes) if (expiresAt <= t) codes.delete(key);
      while (codes.size >= MAX_CODES) codes.delete(codes.keys().next().value!);
      const code = randomCode();
      const expiresAt = t + ttlMs;
      codes.set(digest(code), expiresAt);
      return { code, expiresAt };
    },
    consume(code) {
      const key = digest(code);
      const expiresAt = codes.get(key);
      if (expiresAt === undefined) return false;
      codes.delete(key);
      return expiresAt > now();
    },
  };
}

/** Where a right code leads. */
export const LOGIN_LINK_TARGET = "/ui/deliveries";

export interface LoginLinkDeps {
  codes: LoginCodes | undefined;
  throttle: OperatorThrottle;
  sessions: UiSessionStore;
  logger: HostLogger;
  /** Answers 429 for a blocked client (the dashboard's own page or JSON). */
  refuseBlocked(req: Request, res: Response, waitSeconds: number, next: string): void;
}

/**
 * True when the browser says another site started the request (`Sec-Fetch-Site`
 * `cross-site` or `same-site`: a link on a web page, an <img> of a hostile page), not
 * the operator (`none`: typed, opened from a terminal) nor the dashboard itself.
 */
function startedByAnotherSite(req: Request): boolean {
  const site = req.get("sec-fetch-site");
  return site !== undefined && site !== "none" && site !== "same-origin";
}

/**
 * The answer to a login link another site opened: nothing spent or counted, and a link
 * to the same URL. Followed from this page, the request is the dashboard's own, so the
 * session cookie (SameSite=Strict) is sent on the redirect that follows the login.
 */
function confirmLoginLink(res: Response, code: string): void {
  const content = html`<p>This one-time login link was opened from another site, so it has not been used yet (a page of another site could otherwise spend it, or count wrong codes against this address).</p>
<p><a id="login-link" href="/ui/login?code=${encodeURIComponent(code)}">Log in to the dashboard</a></p>`;
  res.type("html").send(operatorPage({ title: "Log in", base: "/ui", content }));
}

/**
 * `GET /ui/login?code=…`: opened from another site (Sec-Fetch-Site), a page with a
 * link to the same URL that spends and counts nothing; else a right code starts a session and redirects (303) to the
 * deliveries page; a blocked client gets 429 whatever it sends; a wrong, used or
 * expired code is counted as a wrong operator token and gets the login form (401).
 */
export function createLoginLinkHandler(deps: LoginLinkDeps): (req: Request, res: Response, code: string) => void {
  return (req, res, code) => {
    if (startedByAnotherSite(req)) return confirmLoginLink(res, code);
    const client = operatorClient(req);
    const wait = deps.throttle.blockedFor(client);
    if (wait > 0) return deps.refuseBlocked(req, res, wait, LOGIN_LINK_TARGET);
    if (!deps.codes?.consume(code)) {
      deps.throttle.fail(client);
      deps.logger.warn("dashboard login link refused", { client });
      const error =
        "This login link is not valid: it was used already, it expired, or it is mistyped. Restart the demo for a new one, or log in with the operator token.";
      res
        .status(401)
        .type("html")
        .send(renderLogin({ next: LOGIN_LINK_TARGET, error }));
      return;
    }
    deps.throttle.succeed(client);
    const session = deps.sessions.create();
    deps.logger.info("dashboard login (one-time link)", { client });
    res.setHeader("Set-Cookie", sessionCookie(req, session, deps.sessions.ttlMs));
    res.redirect(303, LOGIN_LINK_TARGET);
  };
}
