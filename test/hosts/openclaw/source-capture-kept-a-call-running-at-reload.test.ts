/**
 * What broke (issue 32, docs/openclaw.md "Reloads under load"): inside OpenClaw 2026.9.6 every reload of the plugin
 * ended with `Plugin inbound-webhooks forced retirement after 5000ms: 1 still-running call(s)`, even a reload that only
 * changed models, and the next change under `plugins.*` then failed (`plugin host cleanup timed out: plugin
 * inbound-webhooks resources`). The call OpenClaw still counted was none of the plugin's: it was OpenClaw's own
 * cleanup of the retired instance, the removal of its copy of the plugin's package (`sourceCapture.disposeAsync`,
 * leased in `PluginInstance.finishDisposal`, dist/plugin-setup-module-*.mjs), which must end within the same 5 s as
 * the plugin's calls. The package then declared its 24 libraries, so the copy held 5,480 files (57 MB): its removal
 * took 12.1 s at a load of 7. With the package as one bundle and no dependency (14 files) it takes 0.1–3.6 s.
 *
 * So the package OpenClaw copies at every load must stay small in files: this fails when it grows back.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(__dirname, "../../..");
/** What OpenClaw removes at each reload: the packed files, plus every declared runtime dependency's files. */
const MAX_FILES = 20;

describe("the package OpenClaw copies at every load and removes at every reload", () => {
  it(`is at most ${MAX_FILES} files with no runtime dependency (5,480 files kept a call of the plugin running past OpenClaw's 5 s retirement)`, () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as Record<string, Record<string, string> | undefined>;
    const declared = { ...pkg.dependencies, ...pkg.optionalDependencies, ...pkg.bundleDependencies };
    expect(Object.keys(declared)).toEqual([]);
    const out = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT, encoding: "utf8" });
    const [{ entryCount }] = JSON.parse(out) as Array<{ entryCount: number }>;
    expect(entryCount).toBeGreaterThan(0);
    expect(entryCount).toBeLessThanOrEqual(MAX_FILES);
  });
});
