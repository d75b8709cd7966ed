/**
 * `plugin.json`: the manifest a plugin is known by, read and validated without
 * running any plugin code. Required: `id`, `name`, `version` (semver), `main`
 * (entry module, relative to the plugin dir) and `hostApi` (a semver range the
 * host's HOST_API_VERSION must satisfy).
 */
import fs from "node:fs";
import path from "node:path";
import addFormats from "ajv-formats";
import Ajv, { type Options } from "ajv";
import semver from "semver";
import { HOST_API_VERSION } from "../../host-contract/host-api";
import { isInside } from "../../host-contract/is-inside";
import { presetDeclarationProblem, type ManifestPreset } from "../../host-contract/preset-declarations";
import { createRuleAjv, firstProblem } from "../config/ajv-errors";

export interface PluginManifest {
  id: string;
  name: string;
  version: string;
  description?: string;
  main: string;
  hostApi: string;
  /** Top-level config key holding this plugin's settings (validated against `configSchema`). */
  configSection?: string;
  configSchema?: Record<string, unknown>;
  uiHints?: Record<string, unknown>;
  activation?: { onStartup?: boolean };
  contributes?: {
    httpRoutes?: Array<{ prefix?: string; prefixFromConfig?: string; default?: string }>;
    cliCommands?: string[];
    presets?: ManifestPreset[];
    channels?: string[];
  };
}

const MANIFEST_SCHEMA = {
  type: "object",
  required: ["id", "name", "version", "main", "hostApi"],
  properties: {
    id: { type: "string", pattern: "^[a-z0-9][a-z0-9._-]{0,127}$" },
    name: { type: "string", minLength: 1 },
    version: { type: "string", minLength: 1 },
    description: { type: "string" },
    main: { type: "string", minLength: 1 },
    hostApi: { type: "string", minLength: 1 },
    configSection: { type: "string", pattern: "^[A-Za-z_][A-Za-z0-9_]*$" },
    configSchema: { type: "object" },
    uiHints: { type: "object" },
    activation: { type: "object", properties: { onStartup: { type: "boolean" } } },
    contributes: {
      type: "object",
      properties: {
        httpRoutes: { type: "array", items: { type: "object" } },
        cliCommands: { type: "array", items: { type: "string" } },
        channels: { type: "array", items: { type: "string" } },
        // Checked by presetDeclarationProblem, the rule the OpenClaw adapter applies too.
        presets: {},
      },
    },
  },
} as const;

const validateManifestShape = new Ajv({ strict: false }).compile(MANIFEST_SCHEMA);

/**
 * A validator for plugin-supplied schemas: `$id`s are not registered, so the same
 * schema compiles twice; `x-rule` annotations give the sentences of config errors.
 */
export function createSchemaAjv(options: Options = {}): Ajv {
  const ajv = createRuleAjv({ strict: false, allErrors: false, addUsedSchema: false, ...options });
  addFormats(ajv);
  return ajv;
}
const schemaAjv = createSchemaAjv();

export type ManifestResult = { ok: true; manifest: PluginManifest } | { ok: false; reason: string; id?: string };

/** Reads `<dir>/plugin.json` and checks it; never runs plugin code. */
export function readManifest(dir: string, hostApiVersion = HOST_API_VERSION): ManifestResult {
  const file = path.join(dir, "plugin.json");
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return { ok: false, reason: `no plugin.json in ${dir}` };
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    return { ok: false, reason: `plugin.json is not valid JSON (${(e as Error).message})` };
  }
  const id = typeof (data as { id?: unknown })?.id === "string" ? (data as { id: string }).id : undefined;
  const fail = (reason: string): ManifestResult => ({ ok: false, reason, ...(id ? { id } : {}) });
  if (!validateManifestShape(data)) {
    const p = firstProblem("", validateManifestShape.errors);
    return fail(`plugin.json: ${p.key || "manifest"} ${p.rule}`);
  }
  const m = data as PluginManifest;
  if (!semver.valid(m.version)) return fail(`plugin.json: version "${m.version}" is not a semver version`);
  if (!semver.validRange(m.hostApi)) return fail(`plugin.json: hostApi "${m.hostApi}" is not a semver range`);
  if (!semver.satisfies(hostApiVersion, m.hostApi)) {
    return fail(`plugin.json: needs host API ${m.hostApi}, this gateway implements ${hostApiVersion}`);
  }
  const main = path.resolve(dir, m.main);
  if (!isInside(dir, main)) return fail(`plugin.json: main "${m.main}" points outside the plugin directory`);
  if (!fs.existsSync(main)) return fail(`plugin.json: main "${m.main}" does not exist (is the plugin built?)`);
  if (m.configSchema) {
    try {
      schemaAjv.compile(m.configSchema);
    } catch (e) {
      return fail(`plugin.json: configSchema is not a valid JSON Schema (${(e as Error).message})`);
    }
  }
  const presetProblem = presetDeclarationProblem(m.contributes?.presets, dir);
  if (presetProblem) return fail(presetProblem);
  return { ok: true, manifest: m };
}
