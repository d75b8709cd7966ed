/**
 * The rows of `gateway plugins list`: discovered plugins with their status, each
 * enabled one's config section checked against its manifest (no plugin code runs).
 */
import path from "node:path";
import type { GatewayConfig } from "../config/gateway-config";
import { PACKAGE_ROOT, STATE_FILES } from "../paths";
import { discoverPlugins, type DiscoveredPlugin } from "../plugins/discover";
import { openPluginState } from "../plugins/plugin-state";
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
  const found = discoverPlugins({
    builtinDir: PACKAGE_ROOT,
    paths: config.pluginPaths,
    installedDir: path.join(config.stateDir, STATE_FILES.pluginsDir),
    state: openPluginState(config.stateDir),
  });
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

