/**
 * The operator token (`gateway.auth.token`) as the gateway's operator surfaces
 * (`/api/*`, `/ui`) check it: taken from `Authorization: Bearer …` and compared in
 * constant time (both sides hashed first, so their lengths never leak).
 *
 * @example
 *   const ok = sameSecret(bearerToken(req) ?? "", operatorToken);
 */
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";

/** Constant-time equality of two secrets of any length. */
export function sameSecret(a: string, b: string): boolean {
  const x = crypto.createHash("sha256").update(a).digest();
  const y = crypto.createHash("sha256").update(b).digest();
  return crypto.timingSafeEqual(x, y);
}

/** The token of an `Authorization: Bearer <token>` header, if any. */
export function bearerToken(req: Pick<IncomingMessage, "headers">): string | undefined {
  const h = req.headers.authorization;
  const m = typeof h === "string" ? /^Bearer\s+(.+)$/i.exec(h.trim()) : null;
  return m?.[1]?.trim();
}
