/**
 * `gateway.trustProxy`: the proxies whose `X-Forwarded-For` the gateway believes
 * (Express `trust proxy`, proxy-addr semantics). Each entry is an IP address, a
 * CIDR range or one of proxy-addr's names; anything else is refused at start,
 * naming `gateway.trustProxy[i]`, instead of failing inside Express.
 *
 * @example trustProxyProblems(["127.0.0.1", "10.0.0.0/8", "10.0.0.0/33"]) // [{ key: "gateway.trustProxy[2]", rule: … }]
 */
import net from "node:net";
import type { KeyedProblem } from "../../host-contract/config-rules";

/** proxy-addr's named ranges. */
export const TRUST_PROXY_NAMES: readonly string[] = ["loopback", "linklocal", "uniquelocal"];

const RULE = `must be an IP address, a CIDR range (e.g. 10.0.0.0/8 or fd00::/8) or one of ${TRUST_PROXY_NAMES.join(", ")}`;

/** True for an address, `address/prefix` (0–32 for IPv4, 0–128 for IPv6) or a named range. */
export function isTrustProxyEntry(entry: string): boolean {
  if (TRUST_PROXY_NAMES.includes(entry)) return true;
  const slash = entry.indexOf("/");
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = net.isIP(address);
  if (family === 0) return false;
  if (slash < 0) return true;
  const prefix = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/** One problem per entry that is not a valid address, range or name (the schema has already checked the type). */
export function trustProxyProblems(list: unknown): KeyedProblem[] {
  if (!Array.isArray(list)) return [];
  const problems: KeyedProblem[] = [];
  list.forEach((entry, i) => {
    if (typeof entry === "string" && entry !== "" && !isTrustProxyEntry(entry)) problems.push({ key: `gateway.trustProxy[${i}]`, rule: RULE });
  });
  return problems;
}
