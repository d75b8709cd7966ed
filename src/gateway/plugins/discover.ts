/**
 * Finds plugins by their `plugin.json`: every dir of `plugins.paths[]`, every
 * sub-dir of `<stateDir>/plugins/`, then the built-in plugin (this package).
 * Earlier sources win on an id collision (an installed copy overrides the
 * built-in); the later one is reported as shadowed. No plugin code runs here.
 */
import fs from "node:fs";
import path from "node:path";
import { readManifest, type PluginManifest } from "./manifest";
import { openPluginState, type PluginState } from "./plugin-state";
import type { GatewayConfig } from "../config/gateway-config";
import { PACKAGE_ROOT, STATE_FILES } from "../paths";

export type PluginOrigin = "path" | "installed" | "builtin";

export interface DiscoveredPlugin {
  dir: string;
  origin: PluginOrigin;
  /** From the manifest when readable (also for some broken ones). */
  id?: string;
  manifest?: PluginManifest;
  /** `ok` = valid manifest; the other states are final. */
  status: "ok" | "broken" | "shadowed" | "disabled";
  reason?: string;
}

export interface DiscoverOptions {
  builtinDir?: string;
  paths: string[];
  /** `<stateDir>/plugins/` (absent: none). */
  installedDir?: string;
  state: PluginState;
}

export function discoverPlugins(opts: DiscoverOptions): DiscoveredPlugin[] {
  const dirs: Array<{ dir: string; origin: PluginOrigin }> = [];
  for (const p of opts.paths) dirs.push({ dir: p, origin: "path" });
  if (opts.installedDir !== undefined && fs.existsSync(opts.installedDir)) {
    for (const name of fs.readdirSync(opts.installedDir).sort()) {
      if (name.startsWith(".")) continue;
      const dir = path.join(opts.installedDir, name);
      if (fs.statSync(dir).isDirectory()) dirs.push({ dir, origin: "installed" });
    }
  }
  if (opts.builtinDir) dirs.push({ dir: opts.builtinDir, origin: "builtin" });

  const seen = new Map<string, DiscoveredPlugin>();
  const out: DiscoveredPlugin[] = [];
  for (const { dir, origin } of dirs) {
    const res = readManifest(dir);
    if (!res.ok) {
      out.push({ dir, origin, status: "broken", reason: res.reason, ...(res.id ? { id: res.id } : {}) });
      continue;
    }
    const id = res.manifest.id;
    const first = seen.get(id);
    if (first) {
      out.push({ dir, origin, id, manifest: res.manifest, status: "shadowed", reason: `shadowed by ${first.origin} copy in ${first.dir}` });
      continue;
    }
    const entry: DiscoveredPlugin = { dir, origin, id, manifest: res.manifest, status: opts.state.isEnabled(id) ? "ok" : "disabled" };
    if (entry.status === "disabled") entry.reason = "disabled (gateway plugins enable " + id + ")";
    seen.set(id, entry);
    out.push(entry);
  }
  return out;
}

/**
 * The plugins a gateway config names: its `plugins.paths`, those installed in its state
 * dir, and the built-in one (this package, unless `builtinDir` says otherwise; `null`: none),
 * with the enabled/disabled state kept there.
 */
export function discoverConfiguredPlugins(
  config: Pick<GatewayConfig, "pluginPaths" | "stateDir">,
  builtinDir: string | null = PACKAGE_ROOT,
): DiscoveredPlugin[] {
  return discoverPlugins({
    builtinDir: builtinDir ?? undefined,
    paths: config.pluginPaths,
    installedDir: path.join(config.stateDir, STATE_FILES.pluginsDir),
    state: openPluginState(config.stateDir),
  });
}
