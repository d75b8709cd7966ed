/**
 * Which header and query-parameter names carry credentials (SPEC §6.2: never
 * visible to templates or transforms). One rule for both: the name is decoded
 * (`+` as space, percent escapes, repeatedly), trimmed and lower-cased, then
 * matched against a fixed list and a substring pattern.
 */
import { normaliseParamName } from "./query-token-redaction";

/** Names removed exactly (after decoding and lower-casing). */
export const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  "authorization",
  "proxy-authorization",
  "cookie",
  "x-service-token",
  "key",
  "sig",
]);

/**
 * Names removed when they contain one of these: signatures (`x-hub-signature-256`,
 * `svix-signature`, …), tokens (`x-gitlab-token`, `access_token`, …), secrets,
 * HMACs (`x-shopify-hmac-sha256`), API keys (`api-key`, `x-api-key`, `api_key`,
 * `apikey`) and passwords.
 */
export const CREDENTIAL_NAME_PATTERN = /signature|token|secret|hmac|api[-_ ]?key|passw(?:or)?d/;

/**
 * True when a header or query-parameter name carries a credential.
 *
 * @example isCredentialName("X-Shopify-Hmac-Sha256") // true
 * @example isCredentialName("access%5Ftoken") // true
 * @example isCredentialName("x-github-event") // false
 */
export function isCredentialName(rawName: string): boolean {
  const name = normaliseParamName(rawName);
  return CREDENTIAL_NAMES.has(name) || CREDENTIAL_NAME_PATTERN.test(name);
}

/** Response-side cookies: never a credential a sender sends, but never stored either. */
const ALSO_HIDDEN_HEADERS: ReadonlySet<string> = new Set(["set-cookie"]);

/**
 * True when a request header's value must never be stored or shown (the delivery
 * ledger): a credential name (above), `set-cookie`, or one of `extra` — lower-case
 * names configured elsewhere, such as a `verify.header` of `hmac-sha256` or
 * `token-header`, which may be named anything.
 *
 * @example isHiddenHeaderName("x-my-sig", new Set(["x-my-sig"])) // true
 */
export function isHiddenHeaderName(rawName: string, extra: ReadonlySet<string> = new Set()): boolean {
  const name = normaliseParamName(rawName);
  return isCredentialName(name) || ALSO_HIDDEN_HEADERS.has(name) || extra.has(name);
}
