/**
 * `npm pack` of this repository into `into`, from the dist/ already built (`npm run build`, which the system
 * project runs first): `--ignore-scripts` skips the package's `prepack` build, which would clean dist/ under the
 * suites running beside it. What users run (`npm pack` with its `prepack`) is tested in
 * test/e2e/openclaw/openclaw-features.test.ts (docs-install), on a fresh clone.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const REPO_ROOT = path.resolve(__dirname, "../..");

/** The path of the tarball written into `into`. */
export function packedTarball(into: string): string {
  if (!fs.existsSync(path.join(REPO_ROOT, "dist", "bundle", "index.js"))) throw new Error("dist/ is not built: run `npm run build` first");
  const out = execFileSync("npm", ["pack", "--silent", "--ignore-scripts", "--pack-destination", into], { cwd: REPO_ROOT, encoding: "utf8" });
  return path.join(into, out.trim().split("\n").pop()!);
}
