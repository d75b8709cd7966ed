/**
 * This plugin's presets as the host's `listPresets()` returns them: read from
 * plugin.json, tagged with the plugin id, `transformsDir` made absolute.
 */
import fs from "node:fs";
import path from "node:path";
import type { HookPresetContribution } from "../../../src/host-contract/host-api";

export const PLUGIN_DIR = path.resolve(__dirname, "..");

interface Manifest {
  id: string;
  contributes: { presets: Array<Omit<HookPresetContribution, "pluginId"> & { transformsDir: string }> };
}

export function alertmanagerContributions(): HookPresetContribution[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(PLUGIN_DIR, "plugin.json"), "utf8")) as Manifest;
  return manifest.contributes.presets.map((p) => ({ ...p, pluginId: manifest.id, transformsDir: path.resolve(PLUGIN_DIR, p.transformsDir) }));
}

/** A payload from fixtures/ (captured in Alertmanager's webhook format, version 4). */
export function alertmanagerFixture(name: string): Record<string, unknown> {
  return JSON.parse(fs.readFileSync(path.join(PLUGIN_DIR, "fixtures", name), "utf8")) as Record<string, unknown>;
}
