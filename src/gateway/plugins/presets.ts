/**
 * Presets declared in manifests (`contributes.presets[]` with `mappings`),
 * with `transformsDir` made absolute against the plugin dir. Entries without
 * `mappings` only describe presets a plugin implements in code and are skipped.
 */
import path from "node:path";
import type { HookPresetContribution } from "../../host-contract/host-api";
import type { PluginManifest } from "./manifest";

export function manifestPresets(manifest: PluginManifest, dir: string): HookPresetContribution[] {
  return (manifest.contributes?.presets ?? [])
    .filter((p) => Array.isArray(p.mappings))
    .map((p) => ({
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      pluginId: manifest.id,
      mappings: structuredClone(p.mappings!),
      ...(p.transformsDir ? { transformsDir: path.resolve(dir, p.transformsDir) } : {}),
    }));
}
