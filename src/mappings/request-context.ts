/**
 * The view of a request that templates and transforms get (SPEC §6.2): credentials
 * are removed here, once, so neither can ever read them.
 */
import type { MappedHookInput } from "../http/types";
import { isTokenParamName } from "../logging/query-token-redaction";
import type { TemplateContext } from "./templates/compile-template";

/** Headers removed by name. */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "x-service-token",
  "cookie",
  "x-api-key",
]);

/**
 * Headers removed by pattern: signatures (`x-hub-signature*`, `x-signature*`,
 * `webhook-signature`, `svix-signature`, `stripe-signature`, …) and any header
 * carrying a token or secret (`x-gitlab-token`, `x-webhook-secret`, …).
 */
const CREDENTIAL_HEADER_PATTERN = /signature|token|secret/;

export function isCredentialHeader(name: string): boolean {
  const n = name.toLowerCase();
  return CREDENTIAL_HEADERS.has(n) || CREDENTIAL_HEADER_PATTERN.test(n);
}

/** Lower-cased headers without credentials. */
export function stripCredentialHeaders(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (typeof v !== "string" || isCredentialHeader(k)) continue;
    out[k.toLowerCase()] = v;
  }
  return out;
}

/** Query parameters without the hook-token carrier (`token` in any case or encoding). */
export function stripCredentialQuery(query: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== "string" || isTokenParamName(k)) continue;
    out[k] = v;
  }
  return out;
}

/** The URL without any `token` query parameter. */
export function stripCredentialUrl(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (isTokenParamName(key)) params.delete(key);
  const rest = params.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}

/** Template context plus what transforms also see. */
export interface RequestContext extends TemplateContext {
  url: string;
  requestId: string;
}

/** Builds the credential-free context of one request at time `now`. */
export function buildRequestContext(input: MappedHookInput, now: Date): RequestContext {
  return {
    path: input.name,
    now: now.toISOString(),
    headers: stripCredentialHeaders(input.headers),
    query: stripCredentialQuery(input.query),
    payload: input.payload,
    url: stripCredentialUrl(input.url),
    requestId: input.requestId,
  };
}
