/**
 * The rows of `gateway plugins list`: discovered plugins with their status, each
 * enabled one's config section checked against its manifest (no plugin code runs).
 */
import type { GatewayConfig } from "../config/gateway-config";
import { discoverConfiguredPlugins, type DiscoveredPlugin } from "../plugins/discover";
import { checkPluginConfig } from "../plugins/plugin-config";

export interface PluginListRow {
  id: string | null;
  name: string | null;
  version: string | null;
  origin: DiscoveredPlugin["origin"];
  dir: string;
  status: "enabled" | "disabled" | "broken" | "shadowed";
  reason: string | null;
}

/** Rows of `gateway plugins list` (no plugin code runs). */
export function listPlugins(config: GatewayConfig): PluginListRow[] {
  const found = discoverConfiguredPlugins(config);
  return found.map((p) => {
    let status: PluginListRow["status"] = p.status === "ok" ? "enabled" : p.status;
    let reason = p.reason ?? null;
    if (p.status === "ok") {
      const problems = checkPluginConfig(p.manifest!, config.raw);
      if (problems.length > 0) {
        status = "broken";
        reason = `invalid config: ${problems.map((x) => `${x.key} ${x.rule}`).join("; ")}`;
      }
    }
    return {
      id: p.id ?? null,
      name: p.manifest?.name ?? null,
      version: p.manifest?.version ?? null,
      origin: p.origin,
      dir: p.dir,
      status,
      reason,
    };
  });
}
