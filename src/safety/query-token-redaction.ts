/**
 * Recognising and hiding the deprecated `token` query parameter (SPEC §9: "query
 * tokens redacted from every log line"). The hook token carrier decodes query
 * names with URLSearchParams, so `?%74oken=` and `?tok%65n=` carry the token just
 * like `?token=`: recognition therefore works on the decoded name, compared
 * case-insensitively (`?TOKEN=` is not a carrier, but is hidden all the same).
 * Shared by the logger (every log line), the router (the logged URL) and the
 * mapping engine (the URL templates and transforms see).
 */

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

/**
 * A raw (still encoded) header or query-parameter name as the receiving side
 * understands it: `+` is a space, percent escapes are decoded (repeatedly, so a
 * double-encoded name is caught too), surrounding white space is dropped, and it
 * is lower-cased. Shared with the mapping engine's credential rule.
 *
 * @example normaliseParamName("ToK%65n") // "token"
 */
export function normaliseParamName(rawName: string): string {
  let name = rawName.replace(/\+/g, " ");
  for (let i = 0; i < 4; i++) {
    const decoded = lenientDecode(name);
    if (decoded === name) break;
    name = decoded;
  }
  return name.trim().toLowerCase();
}

/**
 * True when a raw (still encoded) query parameter name means `token`, compared
 * after `normaliseParamName`.
 *
 * @example isTokenParamName("%74oken") // true
 */
export function isTokenParamName(rawName: string): boolean {
  return normaliseParamName(rawName) === "token";
}

/** `[?&]name=value` (or `name=value` at the very start of the string). The value runs to the next `&` or white space. */
const QUERY_PARAM = /(^|[?&])([^?&=\s]*)=([^&\s]*)/g;

/**
 * The text with the value of every token query parameter replaced by
 * `[REDACTED]`; everything else is kept byte for byte. Works on whole URLs,
 * bare query strings and free text that embeds a URL.
 *
 * @example redactQueryTokens("/hooks/wake?%74oken=s3cret&a=1") // "/hooks/wake?%74oken=[REDACTED]&a=1"
 */
export function redactQueryTokens(text: string): string {
  return redactQueryParams(text, isTokenParamName);
}

/**
 * The text with the value of every query parameter whose raw name `hide` accepts
 * replaced by `[REDACTED]` (linear: one pass of a non-backtracking pattern).
 */
export function redactQueryParams(text: string, hide: (rawName: string) => boolean): string {
  if (!text.includes("=")) return text;
  return text.replace(QUERY_PARAM, (whole, sep: string, name: string, value: string) => (value !== "" && hide(name) ? `${sep}${name}=[REDACTED]` : whole));
}
