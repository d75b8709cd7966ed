#!/usr/bin/env node
/**
 * Whether dist/ is the build of the current sources, so `npm start` (its `prestart`)
 * builds only when something changed:
 *
 *   node scripts/dist-freshness.js clean           first step of `npm run build`: empties dist/ and
 *                                                  notes the time the build started (dist/.build-started)
 *   node scripts/dist-freshness.js stamp           last step of `npm run build`: the build is complete
 *                                                  (renames the note to dist/.build-stamp, keeping its time)
 *   node scripts/dist-freshness.js build-if-stale  `prestart`: runs `npm run build` when dist/ has no
 *                                                  stamp or a build input is newer than it; else one line
 *
 * Build inputs: everything under src/ (files and folders, so a deleted or renamed file
 * counts too), the build's own scripts, the tsconfig files, package.json and
 * package-lock.json. The stamp carries the time the build STARTED: a source saved while
 * tsc was running is newer than it, and the next start builds again. An interrupted build
 * leaves no stamp, so the next start builds. Never run from `postinstall` (installing the
 * package into a host such as OpenClaw must not build).
 */
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const { spawnSync } = require("node:child_process");

const INPUTS = [
  "src",
  "scripts/build-ui-assets.js",
  "scripts/bundle.js",
  "scripts/dist-freshness.js",
  "tsconfig.json",
  "tsconfig.build.json",
  "package.json",
  "package-lock.json",
];
const STARTED = ".build-started";
const STAMP = ".build-stamp";

/** The newest modification time among `entry` and, for a folder, everything below it. */
function newest(file, best) {
  let st;
  try {
    st = fs.statSync(file);
  } catch {
    return best; // an optional input (e.g. no package-lock.json)
  }
  if (st.mtimeMs > best.mtimeMs) best = { file, mtimeMs: st.mtimeMs };
  if (st.isDirectory()) for (const name of fs.readdirSync(file)) best = newest(path.join(file, name), best);
  return best;
}

/** Why dist/ under `root` must be rebuilt (one sentence), or undefined when it is up to date. */
function staleReason(root) {
  let stamp;
  try {
    stamp = fs.statSync(path.join(root, "dist", STAMP)).mtimeMs;
  } catch {
    return "dist/ holds no complete build";
  }
  const latest = INPUTS.reduce((best, rel) => newest(path.join(root, rel), best), { file: undefined, mtimeMs: 0 });
  if (latest.mtimeMs > stamp) return `${path.relative(root, latest.file)} changed since the last build`;
  return undefined;
}

function clean(root) {
  const dist = path.join(root, "dist");
  fs.rmSync(dist, { recursive: true, force: true });
  fs.mkdirSync(dist, { recursive: true });
  fs.writeFileSync(path.join(dist, STARTED), `${new Date().toISOString()}\n`);
}

function stamp(root) {
  fs.renameSync(path.join(root, "dist", STARTED), path.join(root, "dist", STAMP));
}

/** Builds when stale; returns the exit code. `build` runs the build (default: `npm run build --silent` in root). */
function buildIfStale(root, { log = (l) => console.log(l), build } = {}) {
  const reason = staleReason(root);
  if (reason === undefined) {
    log("build: dist/ is up to date, not rebuilding (`npm run build` forces a build)");
    return 0;
  }
  log(`build: ${reason}; building (npm run build)`);
  const run =
    build ?? (() => spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", ["run", "build", "--silent"], { cwd: root, stdio: "inherit" }).status ?? 1);
  return run();
}

module.exports = { staleReason, clean, stamp, buildIfStale, INPUTS };

if (require.main === module) {
  const root = path.resolve(__dirname, "..");
  const command = process.argv[2];
  if (command === "clean") clean(root);
  else if (command === "stamp") stamp(root);
  else if (command === "build-if-stale") process.exitCode = buildIfStale(root);
  else {
    process.stderr.write("usage: node scripts/dist-freshness.js clean|stamp|build-if-stale\n");
    process.exitCode = 2;
  }
}
