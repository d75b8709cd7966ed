/**
 * Compiles the presets enabled in `hooks.presets`, in that order: the built-in
 * `mail` preset in code, every other name from the presets preset plugins
 * contribute (through the host's `listPresets()`). An unknown name fails start
 * with the list of available presets.
 */
import path from "node:path";
import type { CompilableHooksConfig } from "../../config/types";
import { parseMappings } from "../../config/mappings";
import { ConfigError } from "../../core/errors";
import type { ModuleLogger } from "../../core/logger";
import type { HookPresetContribution } from "../../host-contract/host-api";
import type { CompiledMapping } from "../compiled-mapping";
import { compileTemplateMapping } from "../template-mapping";
import { createMailPresetMappings, MAIL_PRESET_NAME } from "./mail-preset";
import { createGithubPresetMappings, GITHUB_PRESET_NAME, githubSecretProblem } from "./github-preset";

/** Presets implemented in code by this plugin. */
const BUILT_IN = [MAIL_PRESET_NAME, GITHUB_PRESET_NAME];

/** Plugin id of this plugin: its own manifest entry for `mail` is implemented in code, not read from there. */
export const SELF_PLUGIN_ID = "inbound-webhooks";

/** Names of every preset that could be enabled: the built-in ones plus the contributed ones, sorted. */
export function availablePresetNames(contributions: readonly HookPresetContribution[]): string[] {
  const names = new Set(contributions.filter((c) => c.pluginId !== SELF_PLUGIN_ID).map((c) => c.name));
  for (const b of BUILT_IN) names.delete(b);
  return [...BUILT_IN, ...[...names].sort()];
}

function compileContributed(contribution: HookPresetContribution, logger: ModuleLogger): CompiledMapping[] {
  const { name, pluginId } = contribution;
  const parsed = parseMappings(contribution.mappings, { label: ["presets", name, "mappings"], idPrefix: `${name}-` });
  if (!parsed.ok) throw new ConfigError(`Preset "${name}" of plugin ${pluginId} has invalid mappings: ${parsed.error.join("; ")}`);
  const dir = contribution.transformsDir;
  if (dir !== undefined && !path.isAbsolute(dir)) {
    throw new ConfigError(
      `Preset "${name}" of plugin ${pluginId}: transformsDir must be an absolute path (the host resolves it against the plugin's directory)`,
    );
  }
  const compiled = parsed.value.map((m, i) =>
    compileTemplateMapping(m, {
      key: `presets.${name}.mappings[${i}]`,
      origin: { kind: "preset", preset: name, pluginId, index: i },
      transformsDir: dir,
      transformsDirLabel: `the transformsDir of preset "${name}" (plugin ${pluginId})`,
    }),
  );
  logger.debug("preset compiled", { preset: name, pluginId, mappings: compiled.length });
  return compiled;
}

/** The problem of `hooks.presets[i]` naming `name` when no preset (or more than one plugin's) has that name. */
function presetNameProblem(name: string, i: number, contributions: readonly HookPresetContribution[]): string | undefined {
  if (BUILT_IN.includes(name)) return undefined;
  const offers = contributions.filter((c) => c.pluginId !== SELF_PLUGIN_ID && c.name === name);
  if (offers.length === 0) return `hooks.presets[${i}] names an unknown preset "${name}"; available presets: ${availablePresetNames(contributions).join(", ")}`;
  if (offers.length > 1)
    return `hooks.presets[${i}]: preset "${name}" is contributed by more than one plugin (${offers.map((c) => c.pluginId).join(", ")}); disable all but one`;
  return undefined;
}

/** Every problem of the enabled presets' names and their settings (`hooks.github.secret`), in `hooks.presets` order. */
function presetProblems(names: readonly unknown[], github: { secret?: unknown } | undefined, contributions: readonly HookPresetContribution[]): string[] {
  return names.flatMap((name, i) => {
    if (typeof name !== "string") return [];
    const problem = name === GITHUB_PRESET_NAME ? githubSecretProblem(github, i) : presetNameProblem(name, i, contributions);
    return problem === undefined ? [] : [problem];
  });
}

/**
 * The mappings of every enabled preset, in `hooks.presets` order (an undefined entry, one that
 * failed the schema, is skipped). Throws one ConfigError naming every preset problem.
 */
export function compilePresets(config: CompilableHooksConfig, contributions: readonly HookPresetContribution[], logger: ModuleLogger): CompiledMapping[] {
  const problems = presetProblems(config.presets, config.github, contributions);
  if (problems.length > 0) throw new ConfigError(problems.join("\n"));
  const foreign = contributions.filter((c) => c.pluginId !== SELF_PLUGIN_ID);
  const out: CompiledMapping[] = [];
  // hooks.presets lists each name once (the config schema refuses a repeat).
  config.presets.forEach((name, i) => {
    if (name === undefined) return;
    if (BUILT_IN.includes(name)) {
      for (const c of foreign.filter((f) => f.name === name))
        logger.warn("a plugin contributes a preset named like the built-in one; the built-in preset is used", { preset: name, pluginId: c.pluginId });
      out.push(...(name === MAIL_PRESET_NAME ? createMailPresetMappings(config) : createGithubPresetMappings(config, i)));
      return;
    }
    out.push(
      ...compileContributed(
        foreign.find((c) => c.name === name)!,
        logger,
      ),
    );
  });
  return out;
}
