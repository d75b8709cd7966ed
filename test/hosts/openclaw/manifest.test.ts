/**
 * openclaw.plugin.json is generated from the same config rules as plugin.json
 * (`npm run generate`): this fails while the committed file differs from what the
 * generator writes, and checks what OpenClaw needs of it.
 */
import fs from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import { buildOpenClawConfigSchema, OPENCLAW_MANIFEST_PATH, renderOpenClawManifest } from "../../../src/hosts/openclaw/manifest";

const ROOT = path.resolve(__dirname, "../../..");

describe("openclaw.plugin.json", () => {
  it("is what `npm run generate` writes (run it and commit openclaw.plugin.json when this fails)", () => {
    const text = fs.readFileSync(OPENCLAW_MANIFEST_PATH, "utf8");
    if (text !== renderOpenClawManifest()) throw new Error("openclaw.plugin.json is stale: run `npm run generate` and commit it.");
  });

  it("has the id OpenClaw's plugins.entries key uses, and package.json#openclaw.extensions names a built entry that npm pack ships", () => {
    const manifest = JSON.parse(fs.readFileSync(OPENCLAW_MANIFEST_PATH, "utf8")) as { id: string };
    expect(manifest.id).toBe("inbound-webhooks");
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[]; openclaw: { extensions: string[] } };
    expect(pkg.openclaw.extensions).toEqual(["./dist/hosts/openclaw/plugin-entry.js"]);
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", "openclaw.plugin.json"]));
  });

  it("judges the section with OpenClaw's defaults: enabled true, path /webhooks, no token required by the schema", () => {
    const schema = buildOpenClawConfigSchema() as { properties: Record<string, { default?: unknown }> };
    expect(schema.properties.enabled!.default).toBe(true);
    expect(schema.properties.path!.default).toBe("/webhooks");
    const ajv = new Ajv({ allErrors: true, strict: false });
    const validate = ajv.compile(schema);
    expect(validate({})).toBe(true);
    expect(validate({ token: { env: "HOOK_TOKEN" }, presets: ["github"], github: { secret: { env: "GH" } } })).toBe(true);
    expect(validate({ tokn: "x" })).toBe(false);
    expect(validate({ maxBodyBytes: 0 })).toBe(false);
  });
});
