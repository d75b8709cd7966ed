/**
 * `npm run generate`: rewrites plugin.json#configSchema from the joi schema of the
 * `hooks` section (src/config/schema.ts), the one source of the config rules, and
 * openclaw.plugin.json (OpenClaw's manifest) from the same rules.
 * test/config/json-schema/plugin-config-schema.test.ts and
 * test/hosts/openclaw/manifest.test.ts fail while either file is stale.
 */
import fs from "node:fs";
import { PLUGIN_MANIFEST_PATH, renderManifest } from "../src/config/json-schema/plugin-config-schema";
import { OPENCLAW_MANIFEST_PATH, renderOpenClawManifest } from "../src/hosts/openclaw/manifest";

const before = fs.readFileSync(PLUGIN_MANIFEST_PATH, "utf8");
const after = renderManifest(before);
if (after === before) {
  process.stdout.write(`${PLUGIN_MANIFEST_PATH} is up to date\n`);
} else {
  fs.writeFileSync(PLUGIN_MANIFEST_PATH, after);
  process.stdout.write(`${PLUGIN_MANIFEST_PATH}: configSchema regenerated\n`);
}

// openclaw.plugin.json: the same rules, as OpenClaw reads them (src/hosts/openclaw/manifest.ts).
const ocBefore = fs.existsSync(OPENCLAW_MANIFEST_PATH) ? fs.readFileSync(OPENCLAW_MANIFEST_PATH, "utf8") : "";
const ocAfter = renderOpenClawManifest(after);
if (ocAfter === ocBefore) {
  process.stdout.write(`${OPENCLAW_MANIFEST_PATH} is up to date\n`);
} else {
  fs.writeFileSync(OPENCLAW_MANIFEST_PATH, ocAfter);
  process.stdout.write(`${OPENCLAW_MANIFEST_PATH}: regenerated\n`);
}
