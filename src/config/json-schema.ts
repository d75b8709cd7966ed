/**
 * The JSON Schema of the `hooks` section as `plugin.json#configSchema` declares it
 * (the host validates config with it before running plugin code). Read from the
 * manifest itself, so tests check the very schema a host sees.
 *
 * @example
 *   const validate = compilePluginConfigSchema();
 *   validate({ enabled: true }) // false: token is required when enabled
 */
import fs from "node:fs";
import path from "node:path";
import Ajv, { type ValidateFunction } from "ajv";

/** plugin.json at the package root (two levels up from src/config or dist/config). */
export const PLUGIN_MANIFEST_PATH = path.resolve(__dirname, "..", "..", "plugin.json");

/** The `configSchema` object of plugin.json. */
export function readPluginConfigSchema(manifestPath: string = PLUGIN_MANIFEST_PATH): Record<string, unknown> {
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { configSchema?: unknown };
  const schema = manifest.configSchema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
    throw new Error(`${manifestPath} has no configSchema object`);
  }
  return schema as Record<string, unknown>;
}

/**
 * Annotation beside a `pattern` (or a conditional `required`) stating its rule in
 * words — the sentence a host shows instead of the regular expression. It is the
 * matching PATTERN_RULES entry of src/config/rules.ts (a test checks this).
 */
export const RULE_ANNOTATION = "x-rule";

/**
 * Compiles the manifest's schema with ajv 8 (draft-07), strict about keywords and
 * types, reporting all errors. Defaults are not injected: the schema only judges.
 * `x-rule` is declared as an annotation keyword (no validation).
 */
export function compilePluginConfigSchema(manifestPath?: string): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  ajv.addKeyword({ keyword: RULE_ANNOTATION, schemaType: "string" });
  return ajv.compile(readPluginConfigSchema(manifestPath));
}
