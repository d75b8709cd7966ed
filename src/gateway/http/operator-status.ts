/**
 * What the plugins' operator routes add to `GET /api/status` (host API 2.1 `OperatorRouteRegistration.status`):
 * the inspector's `hooks` summary (last delivery, queued and running runs, runs failed in the last hour, the
 * ledger's size) and its `dashboard.liveFeeds`. Counts only: no paths, no secrets. A key two routes name is the
 * first one's (discovery order); a route whose status throws is left out (and logged), so the status route keeps
 * answering.
 */
import type { HostLogger } from "../../host-contract/host-api";
import type { OperatorRouteRegistration } from "../../host-contract/operator-route";

export function operatorStatus(routes: ReadonlyArray<{ pluginId: string; route: OperatorRouteRegistration }>, logger: HostLogger): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { pluginId, route } of routes) {
    if (!route.status) continue;
    let part: Record<string, unknown>;
    try {
      part = route.status();
    } catch (e) {
      logger.warn("a plugin's operator status could not be read", { pluginId, error: (e as Error).message });
      continue;
    }
    for (const [key, value] of Object.entries(part)) if (!Object.hasOwn(out, key)) out[key] = value;
  }
  return out;
}
