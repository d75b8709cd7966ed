/**
 * Which requests a route's prefix takes (host API 2.0 `registerHttpRoute`): those whose path is the
 * prefix or below it by whole segments, compared case-sensitively — `/hooksX` and `/HOOKS/x` are not
 * below `/hooks` (SPEC §4.1). One rule for the host that routes (the embedded gateway) and the plugin
 * that reads its hook's name from what is below (src/intake/hook-request.ts).
 */

/**
 * The path below `prefix` of a URL as received, still percent-encoded, without its query: `""` or
 * starting with `/`. A URL in absolute form (`http://host/hooks/x`, as a forward proxy sends it) is
 * read by its path (its scheme and authority dropped). Undefined when the path is not below `prefix`.
 *
 * @example pathBelow("/hooks", "http://gw/hooks/a?x=1") // "/a"
 * @example pathBelow("/hooks", "/hooksX/a")             // undefined
 */
export function pathBelow(prefix: string, url: string): string | undefined {
  const query = url.indexOf("?");
  let path = query === -1 ? url : url.slice(0, query);
  if (!path.startsWith("/")) {
    const authority = path.indexOf("://");
    const slash = authority === -1 ? -1 : path.indexOf("/", authority + 3);
    path = slash === -1 ? "" : path.slice(slash);
  }
  if (!path.startsWith(prefix)) return undefined;
  const below = path.slice(prefix.length);
  return below === "" || below.startsWith("/") ? below : undefined;
}
