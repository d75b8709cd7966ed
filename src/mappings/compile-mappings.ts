/**
 * Compiles the configured mappings, then the enabled presets in `hooks.presets` order,
 * collecting every problem before it throws: one ConfigError names every bad template,
 * forEach, response body, transform module, preset and mapping on a reserved path, a line each. Entries that are
 * undefined (they failed the schema, src/config/resolve.ts `checkConfig`) are skipped,
 * so a problem the schema already named is never reported again.
 *
 * @example
 *   const mappings = compileMappings(config, { presets: api.listPresets(), logger, configDir });
 */
import type { CompilableHooksConfig } from "../config/types";
import { ConfigError } from "../core/errors";
import type { ModuleLogger } from "../core/logger";
import type { HookPresetContribution } from "../host-contract/host-api";
import type { CompiledMapping } from "./compiled-mapping";
import { collectConfigProblems } from "./config-problems";
import { isReservedReadPath } from "./match";
import { compilePresets } from "./presets/compile-presets";
import { compileTemplateMapping } from "./template-mapping";
import { assertTransformsDirInside } from "./transforms/transform-path";

export interface CompileMappingsOptions {
  /** Presets contributed by plugins (`api.listPresets()`); entries of this plugin itself are ignored. */
  presets: readonly HookPresetContribution[];
  logger: ModuleLogger;
  /** Directory of the config file. When given, `hooks.transformsDir` must be inside it (checked when a mapping has a transform). */
  configDir?: string;
}

/** Every mapping in match order; throws one ConfigError listing every problem. */
export function compileMappings(config: CompilableHooksConfig, options: CompileMappingsOptions): CompiledMapping[] {
  const problems = collectConfigProblems();
  const { configDir } = options;
  if (configDir !== undefined && config.mappings.some((m) => m?.transform)) {
    problems.attempt(() => assertTransformsDirInside(config.transformsDir, configDir));
  }
  const configured = config.mappings.flatMap((m, i) => {
    if (!m) return [];
    const compiled = problems.attempt(() =>
      compileTemplateMapping(m, {
        key: `hooks.mappings[${i}]`,
        origin: { kind: "config", index: i },
        transformsDir: config.transformsDir,
        transformsDirLabel: "hooks.transformsDir",
      }),
    );
    return compiled ? [compiled] : [];
  });
  const presets = problems.attempt(() => compilePresets(config, options.presets, options.logger));
  const mappings = [...configured, ...(presets ?? [])];
  for (const m of mappings) {
    if (m.match.path === undefined || !isReservedReadPath(m.match.path)) continue;
    problems.attempt(() => {
      throw new ConfigError(
        `${m.key}.match.path "${m.match.path}" is reserved: ${config.path}/runs and ${config.path}/deliveries are the run and delivery-ledger routes; choose another path`,
      );
    });
  }
  problems.throwIfAny();
  return mappings;
}
