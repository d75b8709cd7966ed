/**
 * Presets declared in manifests (`contributes.presets[]` with `mappings`), with `transformsDir` made
 * absolute against the plugin dir: the rule every host shares (src/host-contract/preset-declarations.ts).
 */
import type { HookPresetContribution } from "../../host-contract/host-api";
import { declaredPresets } from "../../host-contract/preset-declarations";
import type { PluginManifest } from "./manifest";

export function manifestPresets(manifest: PluginManifest, dir: string): HookPresetContribution[] {
  return declaredPresets(manifest.id, manifest.contributes?.presets, dir);
}
