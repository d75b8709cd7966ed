/**
 * Redaction of log meta and log text (SPEC §9): secret-named keys are replaced,
 * token query parameters (whatever their case or percent-encoding) and Bearer
 * credentials are hidden in every string.
 */
import { isCredentialName, isHiddenHeaderName } from "./credential-name";
import { redactQueryParams, redactQueryTokens } from "./query-token-redaction";

export const REDACTED = "[REDACTED]";

const SECRET_KEYS = /^(token|authorization|x-service-token|cookie|password|secret|apikey|api_key)$/i;

const BEARER_WORD = /bearer/i;

/**
 * Replaces the value of every token query parameter (whatever its case or
 * percent-encoding: `?token=`, `?%74oken=`, `?TOKEN=`) and every Bearer credential.
 */
export function redactString(s: string): string {
  // Most strings hold neither a query parameter nor a Bearer credential: no pass at all.
  if (!s.includes("=") && !BEARER_WORD.test(s)) return s;
  return redactQueryTokens(s).replace(/(Bearer\s+)[^\s"']+/gi, "$1[REDACTED]");
}


export function redact(value: unknown, depth = 0): unknown {
  if (depth > 6) return "[…]";
  if (typeof value === "string") return redactString(value);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEYS.test(k) ? "[REDACTED]" : redact(v, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * Request headers as the delivery ledger keeps them: lower-case names, the value of
 * every credential, signature and cookie header (and of each name in `extra`)
 * replaced by `[REDACTED]`, and any Bearer credential hidden in the others.
 *
 * @example redactHeaders({ Authorization: "Bearer x", "X-GitHub-Event": "push" }) // { authorization: "[REDACTED]", "x-github-event": "push" }
 */
export function redactHeaders(headers: Readonly<Record<string, string>>, extra?: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    const hidden = isHiddenCommonHeader(lower) || (extra !== undefined && extra.size > 0 && isHiddenHeaderName(lower, extra));
    out[lower] = hidden ? REDACTED : redactString(value);
  }
  return out;
}

/**
 * `isHiddenHeaderName` without `extra`, remembered per name: the same few header names
 * come with every request. Bounded, as names are the sender's: past the bound a name is
 * judged afresh each time.
 */
const hiddenByName = new Map<string, boolean>();
const HIDDEN_BY_NAME_MAX = 1024;
function isHiddenCommonHeader(lower: string): boolean {
  let hidden = hiddenByName.get(lower);
  if (hidden === undefined) {
    hidden = isHiddenHeaderName(lower);
    if (hiddenByName.size < HIDDEN_BY_NAME_MAX) hiddenByName.set(lower, hidden);
  }
  return hidden;
}

/**
 * A URL with the value of every credential-named query parameter hidden (`token`,
 * `access_token`, `sig`, `api_key`, …), not only the hook token.
 *
 * @example redactUrlCredentials("/hooks/x?sig=abc&a=1") // "/hooks/x?sig=[REDACTED]&a=1"
 */
export function redactUrlCredentials(url: string): string {
  return redactQueryParams(redactString(url), isCredentialName);
}
