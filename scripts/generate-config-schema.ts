/**
 * `npm run generate`: rewrites plugin.json#configSchema from the joi schema of the
 * `hooks` section (src/config/schema.ts), the one source of the config rules.
 * test/config/config-schema-generated.test.ts fails while plugin.json is stale.
 */
import fs from "node:fs";
import { PLUGIN_MANIFEST_PATH, renderManifest } from "../src/config/json-schema/plugin-config-schema";

const before = fs.readFileSync(PLUGIN_MANIFEST_PATH, "utf8");
const after = renderManifest(before);
if (after === before) {
  process.stdout.write(`${PLUGIN_MANIFEST_PATH} is up to date\n`);
} else {
  fs.writeFileSync(PLUGIN_MANIFEST_PATH, after);
  process.stdout.write(`${PLUGIN_MANIFEST_PATH}: configSchema regenerated\n`);
}
