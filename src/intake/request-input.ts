/** What the mapping engine sees of a request: headers and query as flat string maps. */

/** Request headers by lower-case name, as node:http gives them or flattened (the stages read either). */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** Lower-cased headers as a null-prototype map; repeated headers joined with ", ". */
export function flatHeaders(headers: RequestHeaders): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  for (const name of Object.keys(headers)) {
    const value = headers[name];
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  }
  return out;
}

/** Query parameters of a URL as a null-prototype map; the first value of a repeated parameter wins. */
export function flatQuery(url: string): Record<string, string> {
  const out = Object.create(null) as Record<string, string>;
  const q = url.indexOf("?");
  if (q === -1) return out;
  for (const [name, value] of new URLSearchParams(url.slice(q + 1))) if (!(name in out)) out[name] = value;
  return out;
}
