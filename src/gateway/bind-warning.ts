/**
 * SPEC §9: loopback bind by default and a loud warning when binding elsewhere.
 * Pure, so the decision is tested without opening sockets.
 */

/** True for 127.0.0.0/8 (also IPv4-mapped, `::ffff:127.x.y.z`), `::1` and `localhost`. */
export function isLoopback(bind: string): boolean {
  const b = bind.trim().toLowerCase().replace(/^\[(.*)\]$/, "$1");
  if (b === "localhost" || b === "::1" || b === "0:0:0:0:0:0:0:1") return true;
  return /^(?:::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(b);
}

/**
 * The warning logged at start when `gateway.bind` is not a loopback address
 * (`0.0.0.0`, `::`, a LAN address, a host name), or undefined on loopback.
 *
 * @example bindWarning("0.0.0.0") // "WARNING: gateway.bind is 0.0.0.0: …"
 */
export function bindWarning(bind: string): string | undefined {
  if (isLoopback(bind)) return undefined;
  return `WARNING: gateway.bind is ${bind}: the gateway is reachable from other machines. Keep it behind a firewall or a trusted reverse proxy.`;
}
