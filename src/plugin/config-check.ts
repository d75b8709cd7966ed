/**
 * The plugin's config checks, in one place: the schema (src/config/resolve.ts
 * `checkConfig`) and what only compiling finds — templates, forEach, response
 * bodies, transform modules, presets (src/mappings/compile-mappings.ts). While the
 * schema has problems, the parts that passed are still compiled, so one start
 * lists every problem: the schema's first (sorted by key), then the compiler's in
 * config order; nothing that is only a consequence of a schema problem.
 * `activate` and the host (through the entry's `configProblems`, before it
 * activates anything) use this same function.
 *
 * @example
 *   const { config, mappings } = checkHooksConfig({ config: api.config, configDir, presets: api.listPresets(), presetsComplete: true }, logger);
 */
import { problemLine } from "../host-contract/config-rules";
import type { ConfigCheckInput } from "../host-contract/host-api";
import { checkConfig } from "../config/resolve";
import type { HooksConfig } from "../config/types";
import { ConfigError } from "../core/errors";
import type { ModuleLogger } from "../core/logger";
import { compileMappings } from "../mappings/compile-mappings";
import { createMappingEngine, type MappingEngine } from "../mappings/engine";
import { availablePresetNames } from "../mappings/presets/compile-presets";

export interface CheckedHooksConfig {
  config: HooksConfig;
  mappings: MappingEngine;
}

/** The valid config and its compiled mappings; else throws one ConfigError, a line per problem. */
export function checkHooksConfig(input: ConfigCheckInput, logger: ModuleLogger): CheckedHooksConfig {
  const checked = checkConfig(input.config, { configDir: input.configDir });
  const presets = [...input.presets];
  if (checked.config) {
    return { config: checked.config, mappings: createMappingEngine({ config: checked.config, presets, logger, configDir: input.configDir }) };
  }
  const lines = checked.problems.map(problemLine);
  const compilable = checked.compilable;
  if (compilable) {
    const known = new Set(availablePresetNames(presets));
    // A preset a plugin registers in code is known only once that plugin activated.
    const names = input.presetsComplete ? compilable.presets : compilable.presets.map((n) => (n !== undefined && known.has(n) ? n : undefined));
    try {
      compileMappings({ ...compilable, presets: names }, { presets, logger, configDir: input.configDir });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      lines.push(...e.message.split("\n").filter((l) => l.trim() !== "" && !lines.includes(l)));
    }
  }
  throw new ConfigError(lines.join("\n"));
}

/** Every line `checkHooksConfig` would throw; [] for a valid config. */
export function hooksConfigProblems(input: ConfigCheckInput, logger: ModuleLogger): string[] {
  try {
    checkHooksConfig(input, logger);
    return [];
  } catch (e) {
    if (e instanceof ConfigError) return e.message.split("\n").filter((l) => l.trim() !== "");
    throw e;
  }
}
