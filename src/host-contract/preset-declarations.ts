/**
 * The presets a plugin declares in its `plugin.json` (`contributes.presets[]`), read without running its
 * code — one rule for every host that hands them to the plugin (`api.listPresets()`): the embedded gateway's
 * plugin manager and the OpenClaw adapter, which finds preset plugins among OpenClaw's installed plugins.
 * A declaration is checked (a name, `mappings` a list of objects, `transformsDir` inside the plugin's
 * directory); its mappings are then checked by the plugin with the rules of `hooks.mappings` when it compiles
 * them, so both hosts report the same problems in the same words.
 *
 * @example
 *   const problem = presetDeclarationProblem(manifest.contributes?.presets, dir);
 *   const presets = problem ? [] : declaredPresets(manifest.id, manifest.contributes?.presets, dir);
 */
import path from "node:path";
import type { HookPresetContribution } from "./host-api";
import { isInside } from "./is-inside";

/** A preset declared in a manifest (`contributes.presets[]`). */
export interface ManifestPreset {
  name: string;
  description?: string;
  mappings?: Record<string, unknown>[];
  /** Relative to the plugin dir. */
  transformsDir?: string;
}

const isPlainRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Why `presets` (a manifest's `contributes.presets`) cannot be used, as one `plugin.json: …` sentence; undefined when it can. */
export function presetDeclarationProblem(presets: unknown, dir: string): string | undefined {
  if (presets === undefined) return undefined;
  if (!Array.isArray(presets)) return "plugin.json: contributes.presets must be an array";
  for (const [i, p] of presets.entries()) {
    const at = `plugin.json: contributes.presets[${i}]`;
    if (!isPlainRecord(p)) return `${at} must be an object`;
    if (typeof p.name !== "string" || p.name === "") return `${at}.name must be a non-empty string`;
    if (p.description !== undefined && typeof p.description !== "string") return `${at}.description must be a string`;
    if (p.mappings !== undefined && (!Array.isArray(p.mappings) || !p.mappings.every(isPlainRecord))) return `${at}.mappings must be an array of objects`;
    if (p.transformsDir !== undefined && (typeof p.transformsDir !== "string" || p.transformsDir === ""))
      return `${at}.transformsDir must be a non-empty string`;
    if (typeof p.transformsDir === "string" && !isInside(dir, path.resolve(dir, p.transformsDir))) {
      return `plugin.json: contributes.presets "${p.name}" transformsDir points outside the plugin directory`;
    }
  }
  return undefined;
}

/**
 * The contributions of checked declarations (presetDeclarationProblem found none): entries with `mappings`
 * (entries without only describe presets a plugin implements in code), `transformsDir` made absolute.
 */
export function declaredPresets(pluginId: string, presets: readonly ManifestPreset[] | undefined, dir: string): HookPresetContribution[] {
  return (presets ?? [])
    .filter((p) => Array.isArray(p.mappings))
    .map((p) => ({
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      pluginId,
      mappings: structuredClone(p.mappings!),
      ...(p.transformsDir ? { transformsDir: path.resolve(dir, p.transformsDir) } : {}),
    }));
}
