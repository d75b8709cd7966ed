/**
 * `gateway.ui.allowedHosts`: the host names, besides the loopback ones, that the
 * dashboard and the operator API answer (src/gateway/http/dashboard-hosts.ts) —
 * a reverse proxy's public name, say. Each entry is a host name or an IP address,
 * as the browser puts it in `Host`, without scheme, port or path; anything else
 * is refused at start, naming `gateway.ui.allowedHosts[i]`.
 *
 * @example allowedHostsProblems(["dash.example.com", "https://dash.example.com"]) // [{ key: "gateway.ui.allowedHosts[1]", rule: … }]
 */
import net from "node:net";
import type { KeyedProblem } from "../../host-contract/config-rules";

export const ALLOWED_HOSTS_KEY = "gateway.ui.allowedHosts";

const RULE = 'must be a host name or an IP address, without scheme, port, path or wildcard (e.g. "dashboard.example.com")';

/** One DNS label: letters, digits, `-` and `_`, 1–63 characters, not starting or ending with `-`. */
const LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/i;

/** True for a host name (dot-separated labels, at most 253 characters, one trailing dot allowed) or an IP address (IPv6 with or without brackets). */
export function isAllowedHostEntry(entry: string): boolean {
  const bare = entry.startsWith("[") && entry.endsWith("]") ? entry.slice(1, -1) : entry;
  if (net.isIP(bare) !== 0) return bare === entry || net.isIPv6(bare);
  const name = entry.endsWith(".") ? entry.slice(0, -1) : entry;
  return name.length > 0 && name.length <= 253 && name.split(".").every((label) => LABEL.test(label));
}

/** One problem per entry that is not a host name or an IP address (the schema has already checked the type). */
export function allowedHostsProblems(list: unknown): KeyedProblem[] {
  if (!Array.isArray(list)) return [];
  const problems: KeyedProblem[] = [];
  list.forEach((entry, i) => {
    if (typeof entry === "string" && entry !== "" && !isAllowedHostEntry(entry)) problems.push({ key: `${ALLOWED_HOSTS_KEY}[${i}]`, rule: RULE });
  });
  return problems;
}
