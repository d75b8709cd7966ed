/**
 * openclaw.plugin.json is generated from the same config rules as plugin.json
 * (`npm run generate`): this fails while the committed file differs from what the
 * generator writes, and checks what OpenClaw needs of it.
 */
import fs from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import JSON5 from "json5";
import { resolveConfig, resolveHooksSecrets } from "../../../src/config/resolve";
import { openClawSnapshot } from "../../../src/hosts/openclaw/config-snapshot";
import { buildOpenClawConfigSchema, OPENCLAW_MANIFEST_PATH, renderOpenClawManifest } from "../../../src/hosts/openclaw/manifest";

const ROOT = path.resolve(__dirname, "../../..");

describe("openclaw.plugin.json", () => {
  it("is what `npm run generate` writes (run it and commit openclaw.plugin.json when this fails)", () => {
    const text = fs.readFileSync(OPENCLAW_MANIFEST_PATH, "utf8");
    if (text !== renderOpenClawManifest()) throw new Error("openclaw.plugin.json is stale: run `npm run generate` and commit it.");
  });

  it("has the id OpenClaw's plugins.entries key uses, and package.json#openclaw.extensions names the bundled entry that npm pack ships", () => {
    const manifest = JSON.parse(fs.readFileSync(OPENCLAW_MANIFEST_PATH, "utf8")) as { id: string };
    expect(manifest.id).toBe("inbound-webhooks");
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { files: string[]; openclaw: { extensions: string[] } };
    expect(pkg.openclaw.extensions).toEqual(["./dist/bundle/index.js"]);
    expect(pkg.files).toEqual(expect.arrayContaining(["dist/bundle/*.js", "openclaw.plugin.json"]));
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

describe("docs/openclaw.md", () => {
  it("its config example passes openclaw.plugin.json's schema and resolves inside OpenClaw", () => {
    const doc = fs.readFileSync(path.join(ROOT, "docs/openclaw.md"), "utf8");
    const block = /```json5\n([\s\S]*?)```/.exec(doc);
    expect(block).not.toBeNull();
    const openclaw = JSON5.parse(block![1]!) as { plugins: { entries: Record<string, { config: Record<string, unknown> }> } };
    const section = openclaw.plugins.entries["inbound-webhooks"]!.config;
    expect(new Ajv({ allErrors: true, strict: false }).compile(buildOpenClawConfigSchema())(section)).toBe(true);
    const env = { INBOUND_WEBHOOKS_TOKEN: "docs-example-token-0123456789", GITHUB_WEBHOOK_SECRET: "docs-example-github-secret-0123" };
    const resolved = resolveHooksSecrets(resolveConfig(openClawSnapshot(openclaw, section), { configDir: "/tmp", env }), { configDir: "/tmp", env });
    expect(resolved.path).toBe("/webhooks");
  });
});
