/**
 * The view of a request that templates and transforms get (SPEC §6.2): credentials
 * are removed here, once, so neither can ever read them.
 */
import type { MappedHookInput } from "../core/ports";
import { isCredentialName } from "../host-contract/redaction";
import type { TemplateContext } from "./templates/compile-template";

const NONE: ReadonlySet<string> = new Set();

/** True when the header carries a credential (see `isCredentialName`). */
export function isCredentialHeader(name: string): boolean {
  return isCredentialName(name);
}

/**
 * Lower-cased headers without credentials: every name the credential rule knows,
 * plus `alsoHidden` (lower-case), e.g. the headers a mapping's `verify.header` names.
 */
export function stripCredentialHeaders(headers: Record<string, string>, alsoHidden: ReadonlySet<string> = NONE): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    if (typeof v !== "string" || isCredentialHeader(k) || alsoHidden.has(k.toLowerCase())) continue;
    out[k.toLowerCase()] = v;
  }
  return out;
}

/** Query parameters without credentials (`token`, `access_token`, `api_key`, … in any case or encoding). */
export function stripCredentialQuery(query: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== "string" || isCredentialName(k)) continue;
    out[k] = v;
  }
  return out;
}

/** The URL without credential query parameters. */
export function stripCredentialUrl(url: string): string {
  const q = url.indexOf("?");
  if (q === -1) return url;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const key of [...params.keys()]) if (isCredentialName(key)) params.delete(key);
  const rest = params.toString();
  return rest ? `${url.slice(0, q)}?${rest}` : url.slice(0, q);
}

/** Template context plus what transforms also see. */
export interface RequestContext extends TemplateContext {
  url: string;
  requestId: string;
}

/** Builds the credential-free context of one request at time `now`; `hiddenHeaders` as in stripCredentialHeaders. */
export function buildRequestContext(input: MappedHookInput, now: Date, hiddenHeaders: ReadonlySet<string> = NONE): RequestContext {
  return {
    path: input.name,
    now: now.toISOString(),
    headers: stripCredentialHeaders(input.headers, hiddenHeaders),
    query: stripCredentialQuery(input.query),
    payload: input.payload,
    url: stripCredentialUrl(input.url),
    requestId: input.requestId,
  };
}
