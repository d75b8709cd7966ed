/**
 * Validates a plugin's config section (`config[manifest.configSection]`) against
 * its manifest's `configSchema` with ajv, before any plugin code runs, and
 * reports every problem. An absent section is not validated (the plugin applies
 * its own defaults).
 */
import type { ValidateFunction } from "ajv";
import { describeAjvErrors, type KeyedProblem } from "../config/ajv-errors";
import { createSchemaAjv, type PluginManifest } from "./manifest";

const ajv = createSchemaAjv({ allErrors: true });
const cache = new WeakMap<object, ValidateFunction>();

/** Every problem of the plugin's section, sorted by key; `[]` when it is valid or absent. */
export function checkPluginConfig(manifest: PluginManifest, config: Record<string, unknown>): KeyedProblem[] {
  if (!manifest.configSection || !manifest.configSchema) return [];
  const section = config[manifest.configSection];
  if (section === undefined) return [];
  let validate = cache.get(manifest.configSchema);
  if (!validate) {
    validate = ajv.compile(manifest.configSchema);
    cache.set(manifest.configSchema, validate);
  }
  if (validate(section)) return [];
  return describeAjvErrors(manifest.configSection, validate.errors);
}
