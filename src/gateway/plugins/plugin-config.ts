/**
 * Validates a plugin's config section (`config[manifest.configSection]`) against
 * its manifest's `configSchema` with ajv, before any plugin code runs. An absent
 * section is not validated (the plugin applies its own defaults).
 */
import type { ValidateFunction } from "ajv";
import { firstProblem, type KeyedProblem } from "../config/ajv-errors";
import { createSchemaAjv, type PluginManifest } from "./manifest";

const ajv = createSchemaAjv();
const cache = new WeakMap<object, ValidateFunction>();

/** The first problem of the plugin's section, or undefined when it is valid or absent. */
export function checkPluginConfig(manifest: PluginManifest, config: Record<string, unknown>): KeyedProblem | undefined {
  if (!manifest.configSection || !manifest.configSchema) return undefined;
  const section = config[manifest.configSection];
  if (section === undefined) return undefined;
  let validate = cache.get(manifest.configSchema);
  if (!validate) {
    validate = ajv.compile(manifest.configSchema);
    cache.set(manifest.configSchema, validate);
  }
  if (validate(section)) return undefined;
  return firstProblem(manifest.configSection, validate.errors);
}
