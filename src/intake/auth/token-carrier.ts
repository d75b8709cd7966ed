/**
 * Where a request carries the hook token (SPEC §4.1), in order of preference:
 * `Authorization: Bearer <token>`, `x-service-token: <token>`, then the
 * deprecated `?token=<token>`. The first carrier present is the one used.
 */
import type { RequestHeaders } from "../request-input";

export type TokenCarrier = "bearer" | "header" | "query";

export interface PresentedToken {
  carrier: TokenCarrier;
  token: string;
}

/** The raw query string of a request URL (without the `?`), or "". */
function queryOf(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? "" : url.slice(q + 1);
}

/** True when the URL has a `token` query parameter (even an empty one). */
export function hasQueryToken(url: string): boolean {
  return new URLSearchParams(queryOf(url)).has("token");
}

/**
 * The token the request presents, or undefined when it presents none.
 *
 * @example extractToken({ authorization: "Bearer s3cret" }, "/wake") // { carrier: "bearer", token: "s3cret" }
 */
export function extractToken(headers: RequestHeaders, url: string): PresentedToken | undefined {
  const auth = headers.authorization;
  if (typeof auth === "string") {
    const m = /^Bearer[ \t]+(.*)$/i.exec(auth.trim());
    if (m) return { carrier: "bearer", token: m[1].trim() };
  }
  const service = headers["x-service-token"];
  const serviceValue = Array.isArray(service) ? service[0] : service;
  if (typeof serviceValue === "string") return { carrier: "header", token: serviceValue.trim() };
  const query = new URLSearchParams(queryOf(url));
  if (query.has("token")) return { carrier: "query", token: query.get("token") ?? "" };
  return undefined;
}
