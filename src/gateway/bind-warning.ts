/**
 * SPEC §9: loopback bind by default and a loud warning when binding elsewhere.
 * Pure, so the decision is tested without opening sockets.
 */
import { isLoopback } from "../host-contract/gateway-address";

export { isLoopback };

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
