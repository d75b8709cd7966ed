/**
 * Who is asking, for `/ui`: a session cookie (set by the login form) or the
 * operator token as `Authorization: Bearer`. A Bearer token is judged by the
 * operator throttle like a login (a wrong one counts; a blocked client is refused
 * whatever it sends). State-changing requests of a
 * cookie session must also prove they come from the dashboard itself: the
 * session's CSRF token (form field `_csrf` or `X-CSRF-Token`) AND a same-origin
 * request (`Sec-Fetch-Site: same-origin`, or an `Origin` equal to the gateway's
 * own). A Bearer request carries no ambient credential, so it needs neither.
 */
import type { Request } from "express";
import { bearerToken, sameSecret } from "../http/operator-token";
import { checkOperatorToken, operatorClient, type OperatorThrottle } from "../http/operator-throttle";
import type { UiSessionStore, UiSession } from "./ui-sessions";
import { CSRF_FIELD, CSRF_HEADER } from "../../host-contract/csrf";

export const SESSION_COOKIE = "gw_ui_session";

export type UiPrincipal = { kind: "bearer" } | { kind: "session"; session: UiSession };

/** The value of one cookie of the request (no decoding: ours are base64url). */
export function cookieValue(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (typeof header !== "string") return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * Who the request is: a principal; `missing` (no credential, or a cookie naming
 * no session — not a guess, not counted); `wrong` (a wrong Bearer token, counted);
 * or `blocked` (a Bearer token from a client the operator throttle blocks).
 */
export type UiAuthVerdict =
  { kind: "principal"; principal: UiPrincipal } | { kind: "missing" } | { kind: "wrong" } | { kind: "blocked"; retryAfterSeconds: number };

/** Judges the request's credential; a Bearer token goes through the operator throttle. */
export function authenticate(req: Request, operatorToken: string, sessions: UiSessionStore, throttle: OperatorThrottle): UiAuthVerdict {
  const token = bearerToken(req);
  if (token !== undefined) {
    const verdict = checkOperatorToken(throttle, operatorClient(req), token, operatorToken);
    return verdict.kind === "ok" ? { kind: "principal", principal: { kind: "bearer" } } : verdict;
  }
  const session = sessions.get(cookieValue(req, SESSION_COOKIE));
  return session ? { kind: "principal", principal: { kind: "session", session } } : { kind: "missing" };
}

/** The gateway's own origin as the browser sees it (`http://127.0.0.1:18789`). */
function ownOrigin(req: Request): string {
  return `${req.protocol}://${req.get("host") ?? ""}`;
}

/**
 * True when the browser says the request comes from a page of this origin.
 * `Origin: null` is what Chromium sends on a same-origin form POST under
 * `Referrer-Policy: no-referrer`, so it counts only with `Sec-Fetch-Site: same-origin`.
 */
export function isSameOrigin(req: Request): boolean {
  const site = req.get("sec-fetch-site");
  const origin = req.get("origin");
  if (origin !== undefined && origin !== "null" && origin !== ownOrigin(req)) return false;
  if (site !== undefined) return site === "same-origin";
  return origin !== undefined && origin !== "null";
}

/** The CSRF token the request carries matches its session's. */
export function hasCsrfToken(req: Request, session: UiSession): boolean {
  const body = req.body as Record<string, unknown> | undefined;
  const sent = req.get(CSRF_HEADER) ?? (typeof body?.[CSRF_FIELD] === "string" ? (body[CSRF_FIELD] as string) : undefined);
  return sent !== undefined && sameSecret(sent, session.csrf);
}

/** `Set-Cookie` of a new session (Secure when the request came over https). */
export function sessionCookie(req: Request, session: UiSession, ttlMs: number): string {
  return `${SESSION_COOKIE}=${session.id}; Path=/ui; Max-Age=${Math.floor(ttlMs / 1000)}; HttpOnly; SameSite=Strict${req.secure ? "; Secure" : ""}`;
}

/** `Set-Cookie` that removes the session cookie. */
export function clearedSessionCookie(req: Request): string {
  return `${SESSION_COOKIE}=; Path=/ui; Max-Age=0; HttpOnly; SameSite=Strict${req.secure ? "; Secure" : ""}`;
}
