/**
 * plugin.json#configSchema is generated from the joi schema (one source of the
 * config rules): this fails while the committed file differs from what
 * `npm run generate` writes, e.g. after a rule changed in src/config/.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import {
  buildPluginConfigSchema,
  compilePluginConfigSchema,
  GENERATE_COMMAND,
  PLUGIN_MANIFEST_PATH,
  readPluginConfigSchema,
  renderManifest,
} from "../../../src/config/json-schema/plugin-config-schema";
import { hooksSectionSchema } from "../../../src/config/schema";
import { joiToJsonSchema } from "../../../src/config/json-schema/joi-to-json-schema";
import Joi from "joi";

const ROOT = path.resolve(__dirname, "../../..");

describe("plugin.json#configSchema is generated", () => {
  it(`is what \`${GENERATE_COMMAND}\` writes (run it and commit plugin.json when this fails)`, () => {
    const text = fs.readFileSync(PLUGIN_MANIFEST_PATH, "utf8");
    const expected = renderManifest(text);
    if (text !== expected) {
      throw new Error(`plugin.json is stale: its configSchema differs from the joi schema in src/config/. Run \`${GENERATE_COMMAND}\` and commit plugin.json.`);
    }
    expect(readPluginConfigSchema()).toEqual(buildPluginConfigSchema());
  });

  it("compiles with ajv in strict mode (every keyword known, x-rule declared)", () => {
    expect(() => compilePluginConfigSchema()).not.toThrow();
  });

  it("regenerating keeps the manifest's other fields and their order", () => {
    const text = fs.readFileSync(PLUGIN_MANIFEST_PATH, "utf8");
    const stale = { ...JSON.parse(text), configSchema: { type: "object" } };
    const out = JSON.parse(renderManifest(JSON.stringify(stale)));
    expect(Object.keys(out)).toEqual(Object.keys(stale));
    expect({ ...out, configSchema: undefined }).toEqual({ ...stale, configSchema: undefined });
    expect(out.configSchema).toEqual(buildPluginConfigSchema());
  });

  it(`\`${GENERATE_COMMAND}\` rewrites a stale plugin.json (the script, on a copy of the package root)`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gen-schema-"));
    try {
      for (const part of ["src", "scripts"]) fs.cpSync(path.join(ROOT, part), path.join(dir, part), { recursive: true });
      fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
      const manifest = JSON.parse(fs.readFileSync(PLUGIN_MANIFEST_PATH, "utf8"));
      fs.writeFileSync(path.join(dir, "plugin.json"), JSON.stringify({ ...manifest, configSchema: { type: "object" } }));
      const jiti = path.join(ROOT, "node_modules", "jiti", "lib", "jiti-cli.mjs");
      const run = spawnSync(process.execPath, [jiti, "scripts/generate-config-schema.ts"], { cwd: dir, encoding: "utf8" });
      expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: "" });
      expect(run.stdout).toContain("configSchema regenerated");
      expect(fs.readFileSync(path.join(dir, "plugin.json"), "utf8")).toBe(fs.readFileSync(PLUGIN_MANIFEST_PATH, "utf8"));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the converter refuses what it cannot state", () => {
  it.each<[string, Joi.Schema, string]>([
    ["a rule it does not know", Joi.object({ n: Joi.number().multiple(3) }), 'cannot convert hooks.n to JSON Schema: number rule "multiple"'],
    [
      "a pattern not in rules.ts",
      Joi.object({ s: Joi.string().pattern(/^x$/) }),
      "cannot convert hooks.s to JSON Schema: pattern /^x$/ is not one of PATTERNS in src/config/rules.ts",
    ],
    ["a type it does not know", Joi.object({ d: Joi.date() }), 'cannot convert hooks.d to JSON Schema: type "date"'],
    [
      "pattern keys not in rules.ts",
      Joi.object().pattern(/x/, Joi.string()),
      "cannot convert hooks to JSON Schema: only object().pattern(REGEXES.<name>, <schema>) without fixed keys converts",
    ],
  ])("%s", (_name, schema, message) => {
    expect(() => joiToJsonSchema(schema, ["hooks"])).toThrow(message);
  });

  it("converts the hooks section without refusing anything", () => {
    expect(() => joiToJsonSchema(hooksSectionSchema, ["hooks"])).not.toThrow();
  });
});
