/**
 * The one redaction rule (SPEC §9), for everything the plugin and its host show
 * or keep: the ledger, the logs, the dashboard and the CLI.
 *
 * - A header or query-parameter **name** is a credential when one of its name
 *   tokens is a credential word. The name is decoded first (`+` as space, percent
 *   escapes, repeatedly), split at camelCase boundaries and on `-`, `_`, `.` and
 *   spaces, and compared case-insensitively: `x-auth-key`, `access_token`,
 *   `hub.verify_token`, `apiKey`, `?pwd=` are credentials; `?author=` is not
 *   (`author` is not `auth`). Words that never occur innocently (`token`,
 *   `secret`, `passw…`, `signature`, `credential`, `apikey`) also count inside a
 *   token (`apitoken`, `webhooksecret`). A few names whose meaning is not a
 *   credential are exempt (`Idempotency-Key`, Bitbucket's `X-Event-Key`).
 * - A **value** is hidden wherever it is: `Bearer …` and `Basic …` credentials and
 *   a URL's userinfo (`http://user:password@host`) in any header or text, and the
 *   configured secrets (hook token, verify secrets, Meta verify token) given to
 *   the redactor.
 *
 * Linear in the input: one pass of non-backtracking patterns per string, names
 * judged once each (remembered, bounded).
 */

export const REDACTED = "[REDACTED]";

/** Whole name tokens that mark a credential. */
const CREDENTIAL_TOKENS: ReadonlySet<string> = new Set([
  "token",
  "tokens",
  "key",
  "keys",
  "secret",
  "secrets",
  "password",
  "passwords",
  "passwd",
  "pwd",
  "pass",
  "passphrase",
  "auth",
  "authorization",
  "authentication",
  "signature",
  "signatures",
  "sig",
  "hmac",
  "cookie",
  "cookies",
  "credential",
  "credentials",
  "cert",
  "certificate",
  "jwt",
  "otp",
]);

/** Words that mark a credential even inside a longer token (`apitoken`, `webhooksecret`). */
const CREDENTIAL_INFIX = /token|secret|passw|signature|credential|apikey/;

/**
 * Names (decoded, lower-case) that hold a name token above but no credential: the
 * idempotency key (`Idempotency-Key`, and the `idempotencyKey` of log lines), the
 * session key of a run (`sessionKey`), Bitbucket's event name (`X-Event-Key`).
 */
const NOT_CREDENTIALS: ReadonlySet<string> = new Set([
  "idempotency-key",
  "x-idempotency-key",
  "idempotency_key",
  "idempotencykey",
  "sessionkey",
  "session-key",
  "session_key",
  "x-event-key",
]);

/** Decodes percent escapes that form valid UTF-8 and leaves the others as they are (like URLSearchParams). */
function lenientDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
      try {
        return decodeURIComponent(run);
      } catch {
        return run.replace(/%([0-7][0-9a-f])/gi, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      }
    });
  }
}

/** A raw name decoded as the receiving side understands it (`+` is a space, percent escapes repeatedly), trimmed, case kept. */
function decodeName(rawName: string): string {
  let name = rawName.indexOf("+") === -1 ? rawName : rawName.replace(/\+/g, " ");
  for (let i = 0; i < 4 && name.indexOf("%") !== -1; i++) {
    const decoded = lenientDecode(name);
    if (decoded === name) break;
    name = decoded;
  }
  return name.trim();
}

/**
 * A raw (still encoded) header or query-parameter name as the receiving side
 * understands it, lower-cased.
 *
 * @example normaliseParamName("ToK%65n") // "token"
 */
export function normaliseParamName(rawName: string): string {
  return decodeName(rawName).toLowerCase();
}

const NAME_SEPARATORS = /[-_.\s]+/;
const hasCredentialToken = (name: string): boolean => name.split(NAME_SEPARATORS).some((token) => CREDENTIAL_TOKENS.has(token) || CREDENTIAL_INFIX.test(token));

/** The name's tokens as written (case ignored), and again split at camelCase boundaries (`apiKey`, but also `ToKeN` as written). */
function judgeName(rawName: string): boolean {
  const decoded = decodeName(rawName);
  const lower = decoded.toLowerCase();
  if (NOT_CREDENTIALS.has(lower)) return false;
  return hasCredentialToken(lower) || hasCredentialToken(decoded.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase());
}

/** Names judged so far: the same few header names come with every request. Bounded, as names are the sender's. */
const verdicts = new Map<string, boolean>();
const VERDICTS_MAX = 4096;

/**
 * True when a header or query-parameter name carries a credential.
 *
 * @example isCredentialName("X-Auth-Key") // true
 * @example isCredentialName("access%5Ftoken") // true
 * @example isCredentialName("author") // false
 * @example isCredentialName("Idempotency-Key") // false
 */
export function isCredentialName(rawName: string): boolean {
  let verdict = verdicts.get(rawName);
  if (verdict === undefined) {
    verdict = judgeName(rawName);
    if (verdicts.size < VERDICTS_MAX) verdicts.set(rawName, verdict);
  }
  return verdict;
}

/** `Bearer <credential>` or `Basic <credential>`, the scheme kept. */
const SCHEME_CREDENTIAL = /\b(Bearer|Basic)(\s+)[^\s"',;]+/gi;
const SCHEME_WORD = /bearer|basic/i;

/** `[?&]name=value` (or `name=value` at the very start). The value runs to the next `&`, `#` or white space. */
const QUERY_PARAM = /(^|[?&])([^?&=#\s]*)=([^&#\s]*)/g;

/** Text with every `Bearer …` and `Basic …` credential hidden. */
export function redactSchemeCredentials(text: string): string {
  if (!SCHEME_WORD.test(text)) return text;
  return text.replace(SCHEME_CREDENTIAL, (_m, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
}

/**
 * A URL's userinfo: what follows `://` up to the last `@` before any `/`, `?`, `#` or white
 * space (a password may hold a raw `@`; WHATWG URL parsing takes the last one too). Linear:
 * each try scans one run without `/`, and runs after two `://` never overlap.
 */
const URL_USERINFO = /:\/\/[^/?#\s]+@/g;

/**
 * Text with the userinfo of every URL hidden (an absolute request target may carry one).
 *
 * @example redactUrlUserinfo("http://alice:pw@host/hooks/x") // "http://[REDACTED]@host/hooks/x"
 */
export function redactUrlUserinfo(text: string): string {
  if (text.indexOf("://") === -1) return text;
  return text.replace(URL_USERINFO, `://${REDACTED}@`);
}

/** Credentials in a value: Bearer/Basic credentials and URL userinfo. */
const redactValueCredentials = (text: string): string => redactUrlUserinfo(redactSchemeCredentials(text));

/**
 * Text (a URL, a query string, or free text embedding one) with the value of
 * every credential-named query parameter hidden; everything else byte for byte.
 *
 * @example redactQueryCredentials("/hooks/x?api_key=k&author=me") // "/hooks/x?api_key=[REDACTED]&author=me"
 */
export function redactQueryCredentials(text: string): string {
  if (text.indexOf("=") === -1) return text;
  return text.replace(QUERY_PARAM, (whole, sep: string, name: string, value: string) =>
    value !== "" && isCredentialName(name) ? `${sep}${name}=${REDACTED}` : whole,
  );
}

/** Configured secret values to hide wherever they appear (shorter ones are ignored: they would hide innocent text). */
export interface SecretValues {
  readonly values: readonly string[];
}

/** Secrets shorter than this are not searched for in text (the name rule still hides them). */
export const MIN_HIDDEN_SECRET_LENGTH = 8;

/** A set of configured secrets to hide, longest first (so a secret containing another is hidden whole). */
export function secretValues(values: Iterable<string | undefined>): SecretValues {
  const kept = [...new Set([...values].filter((v): v is string => typeof v === "string" && v.length >= MIN_HIDDEN_SECRET_LENGTH))];
  return { values: kept.sort((a, b) => b.length - a.length) };
}

function hideSecrets(text: string, secrets: SecretValues | undefined): string {
  if (!secrets) return text;
  let out = text;
  for (const s of secrets.values) if (out.indexOf(s) !== -1) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * Any text as it may be logged or shown: credential query parameters, Bearer and
 * Basic credentials, URL userinfo and the given secrets hidden.
 *
 * @example redactText("GET /hooks/x?password=p Authorization: Basic dTpw") // "GET /hooks/x?password=[REDACTED] Authorization: Basic [REDACTED]"
 */
export function redactText(text: string, secrets?: SecretValues): string {
  return hideSecrets(redactValueCredentials(redactQueryCredentials(text)), secrets);
}

/**
 * Request headers as they may be kept or shown: lower-case names; the value of
 * every credential-named header (and of each lower-case name in `extra`, e.g. a
 * configured `verify.header`) hidden; Bearer/Basic credentials, URL userinfo and
 * the given secrets hidden in the others.
 *
 * @example redactHeaders({ "X-Auth-Key": "k", "X-Forwarded-Authorization": "Basic dTpw" }) // { "x-auth-key": "[REDACTED]", "x-forwarded-authorization": "[REDACTED]" }
 */
export function redactHeaders(headers: Readonly<Record<string, string>>, extra?: ReadonlySet<string>, secrets?: SecretValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    const hidden = isCredentialName(lower) || lower === "set-cookie" || (extra !== undefined && extra.has(lower));
    out[lower] = hidden ? REDACTED : hideSecrets(redactValueCredentials(value), secrets);
  }
  return out;
}

/**
 * Log meta (or any JSON-like value): the value of every credential-named key
 * hidden, every string passed through `redactText`. Depth-bounded.
 *
 * @example redactMeta({ url: "/h?access_token=a", password: "p" }) // { url: "/h?access_token=[REDACTED]", password: "[REDACTED]" }
 */
export function redactMeta(value: unknown, secrets?: SecretValues, depth = 0): unknown {
  if (typeof value === "string") return redactText(value, secrets);
  if (depth > 6) return "[…]";
  if (Array.isArray(value)) return value.map((v) => redactMeta(v, secrets, depth + 1));
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = isCredentialName(k) ? REDACTED : redactMeta(v, secrets, depth + 1);
    return out;
  }
  return value;
}
