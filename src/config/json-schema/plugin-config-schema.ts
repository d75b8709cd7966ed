/**
 * `plugin.json#configSchema`: the JSON Schema of the `hooks` section a host
 * validates with before running plugin code. It is generated from the joi schema
 * (src/config/schema.ts) — `npm run generate` rewrites plugin.json with
 * `renderManifest()`, and a test fails while the file differs from it.
 *
 * @example
 *   const validate = compilePluginConfigSchema();
 *   validate({ enabled: true }) // false: token is required when enabled
 */
import fs from "node:fs";
import path from "node:path";
import Ajv, { type ValidateFunction } from "ajv";
import { RULE_ANNOTATION } from "../../host-contract/config-rules";
import { hooksSectionSchema } from "../schema";
import { joiToJsonSchema, type JsonSchema } from "./joi-to-json-schema";

/** plugin.json at the package root (three levels up from src/config/json-schema or dist/config/json-schema). */
export const PLUGIN_MANIFEST_PATH = path.resolve(__dirname, "..", "..", "..", "plugin.json");

/** The command that rewrites plugin.json (named by the staleness test). */
export const GENERATE_COMMAND = "npm run generate";

/** The `configSchema` plugin.json must hold. */
export function buildPluginConfigSchema(): JsonSchema {
  return {
    $schema: "http://json-schema.org/draft-07/schema#",
    $id: "https://inbound-webhooks.local/schemas/hooks.json",
    title: "hooks",
    description: `The hooks section of the gateway config. Generated from the joi schema (src/config/schema.ts) by \`${GENERATE_COMMAND}\`; do not edit by hand.`,
    ...joiToJsonSchema(hooksSectionSchema, ["hooks"]),
  };
}

/** The text of plugin.json with `configSchema` regenerated (other fields kept, in their order). */
export function renderManifest(manifestText: string): string {
  const manifest = JSON.parse(manifestText) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(manifest)) out[key] = key === "configSchema" ? buildPluginConfigSchema() : value;
  if (!("configSchema" in out)) out.configSchema = buildPluginConfigSchema();
  return `${JSON.stringify(out, null, 2)}\n`;
}

/** The `configSchema` object of a manifest file. */
export function readPluginConfigSchema(manifestPath: string = PLUGIN_MANIFEST_PATH): Record<string, unknown> {
  const manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as { configSchema?: unknown };
  const schema = manifest.configSchema;
  if (!schema || typeof schema !== "object" || Array.isArray(schema)) {
    throw new Error(`${manifestPath} has no configSchema object`);
  }
  return schema as Record<string, unknown>;
}

/**
 * Compiles the manifest's schema with ajv 8 (draft-07), strict about keywords and
 * types, reporting all errors. Defaults are not injected: the schema only judges.
 * `x-rule` is declared as an annotation keyword (no validation).
 */
export function compilePluginConfigSchema(manifestPath?: string): ValidateFunction {
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false });
  ajv.addKeyword({ keyword: RULE_ANNOTATION, schemaType: ["string", "object"] });
  return ajv.compile(readPluginConfigSchema(manifestPath));
}
