/**
 * Preset plugins inside OpenClaw (SPEC §6.4, §15): a preset plugin is installed into OpenClaw like any
 * OpenClaw plugin (`openclaw plugins install npm-pack:<tgz> --force`, so it carries an `openclaw.plugin.json`
 * and an entry that registers nothing), switched with OpenClaw's `plugins.entries.<id>.enabled`, and declares
 * its presets in its `plugin.json` (`contributes.presets`) exactly as for the embedded gateway. OpenClaw offers
 * plugins no way to see each other, and its load order is not ours to rely on, so the adapter plays the
 * embedded gateway's plugin manager here: it reads the declarations, without running any plugin code, from
 * where OpenClaw keeps installed plugins (docs/plugins/dependency-resolution.md, "Install roots"):
 *
 * - `<state dir>/npm/projects/<project>/node_modules/<package>` — npm and `npm-pack:` installs (the packages
 *   the project's package.json depends on);
 * - `<state dir>/extensions/<dir>` — path and archive installs;
 * - the directories of `plugins.load.paths` (linked installs, `openclaw plugins install -l`).
 *
 * A plugin OpenClaw has switched off (`plugins.enabled` false, `plugins.deny`, an allow-list without it,
 * `plugins.entries.<id>.enabled` false) contributes nothing. A declaration that cannot be used is reported
 * (one line per plugin) and contributes nothing, as the embedded gateway lists a broken plugin; its mappings
 * are checked by the plugin when it compiles them, with the rules and words of `hooks.mappings`.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { HookPresetContribution } from "../../host-contract/host-api";
import { declaredPresets, presetDeclarationProblem, type ManifestPreset } from "../../host-contract/preset-declarations";
import { PLUGIN_ID, section } from "./config-snapshot";

export interface OpenClawPresetPlugins {
  presets: HookPresetContribution[];
  /** One sentence per preset plugin whose declaration cannot be used. */
  problems: string[];
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as unknown;
  } catch {
    return undefined;
  }
}

function subdirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() || e.isSymbolicLink())
      .map((e) => path.join(dir, e.name));
  } catch {
    return [];
  }
}

/** The package directories OpenClaw installed plugins into, and those it loads from `plugins.load.paths`. */
function pluginDirs(config: Readonly<Record<string, unknown>>, stateRoot: string, configDir: string): string[] {
  const npm = subdirs(path.join(stateRoot, "npm", "projects")).flatMap((project) =>
    Object.keys(section(section(readJson(path.join(project, "package.json"))).dependencies)).map((name) => path.join(project, "node_modules", name)),
  );
  const load = section(section(config.plugins).load).paths;
  const linked = (Array.isArray(load) ? load : [])
    .filter((p): p is string => typeof p === "string" && p.trim() !== "")
    .map((p) => path.resolve(configDir, p.trim().replace(/^~(?=$|\/)/, os.homedir())));
  return [...new Set([...npm, ...subdirs(path.join(stateRoot, "extensions")), ...linked])];
}

/** False when OpenClaw has switched plugin `id` off. */
function enabledInOpenClaw(config: Readonly<Record<string, unknown>>, id: string): boolean {
  const plugins = section(config.plugins);
  if (plugins.enabled === false) return false;
  if (Array.isArray(plugins.deny) && plugins.deny.includes(id)) return false;
  if (Array.isArray(plugins.allow) && plugins.allow.length > 0 && !plugins.allow.includes(id)) return false;
  return section(section(plugins.entries)[id]).enabled !== false;
}

/** The presets of the preset plugins installed into OpenClaw and enabled there. */
export function openClawPresetPlugins(config: Readonly<Record<string, unknown>>, stateRoot: string, configDir: string): OpenClawPresetPlugins {
  const out: OpenClawPresetPlugins = { presets: [], problems: [] };
  for (const dir of pluginDirs(config, stateRoot, configDir)) {
    const openclawId = section(readJson(path.join(dir, "openclaw.plugin.json"))).id;
    if (typeof openclawId !== "string" || openclawId === PLUGIN_ID || !enabledInOpenClaw(config, openclawId)) continue;
    if (!fs.existsSync(path.join(dir, "plugin.json"))) continue;
    const manifest = section(readJson(path.join(dir, "plugin.json")));
    const declared = section(manifest.contributes).presets;
    if (declared === undefined) continue;
    const problem =
      typeof manifest.id !== "string" || manifest.id === "" ? "plugin.json is not valid JSON with an id" : presetDeclarationProblem(declared, dir);
    if (problem) {
      out.problems.push(`preset plugin ${openclawId} (${dir}) contributes no presets: ${problem}`);
      continue;
    }
    out.presets.push(...declaredPresets(manifest.id as string, declared as ManifestPreset[], dir));
  }
  return out;
}
