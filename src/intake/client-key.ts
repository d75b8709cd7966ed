/**
 * The client a request is counted against (auth throttling, the rate policy, deprecation warnings): the
 * address the host reports (`HttpRouteContext.clientAddress`: the socket's, or a trusted proxy's report),
 * an IPv6 address grouped by its /56 (one subscriber's prefix) and an IPv4-mapped one written as IPv4.
 *
 * @example clientKey("2001:db8:abcd:12ff::1") // "2001:db8:abcd:1200::/56"
 */
import { Address6 } from "ip-address";

/** The prefix an IPv6 client is counted by. */
const IPV6_CLIENT_PREFIX = 56;
/** Keys of recent addresses: grouping an IPv6 address parses it, and the same few clients send most requests. */
const MAX_CACHED = 4096;
/** Longer than any IPv6 address with a zone id: a value this long is junk and is not cached (bounded memory). */
const MAX_CACHED_LENGTH = 64;
const cache = new Map<string, string>();
/** `::/96`: the deprecated IPv4-compatible form (`::1.2.3.4`), also written as IPv4. */
const IPV4_COMPATIBLE = new Address6("::/96");

function groupIpv6(address: string): string {
  const parsed = new Address6(address);
  if (parsed.isMapped4() || (parsed.is4() && parsed.isInSubnet(IPV4_COMPATIBLE))) return parsed.to4().correctForm();
  return new Address6(`${address}/${IPV6_CLIENT_PREFIX}`).networkForm();
}

export function clientKey(address: string): string {
  // An IPv4 address (or a host's "unknown") is its own key; only IPv6 is grouped.
  if (!address.includes(":") || !Address6.isValid(address)) return address;
  if (address.length > MAX_CACHED_LENGTH) return groupIpv6(address);
  let key = cache.get(address);
  if (key === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    key = groupIpv6(address);
    cache.set(address, key);
  }
  return key;
}
