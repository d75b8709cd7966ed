/** Writes throw-away plugin directories for the plugin-manager tests. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export function tmpDir(prefix = "gw-plug-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/** Creates `<parent>/<name>/plugin.json` (+ `index.js` with `code`) and returns the dir. */
export function writePlugin(parent: string, name: string, manifest: Record<string, unknown> | string, code = "exports.activate = () => {};"): string {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "plugin.json"), typeof manifest === "string" ? manifest : JSON.stringify(manifest));
  fs.writeFileSync(path.join(dir, "index.js"), code);
  return dir;
}

export const manifestOf = (id: string, extra: Record<string, unknown> = {}) => ({
  id,
  name: `Plugin ${id}`,
  version: "1.0.0",
  main: "index.js",
  hostApi: "^2.0.0",
  ...extra,
});
