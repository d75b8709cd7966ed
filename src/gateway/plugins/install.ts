/**
 * `gateway plugins install <dir|tgz>`: copies a plugin directory (without its
 * `node_modules`, `.git` and `.gateway`) or unpacks an `npm pack` tarball into
 * `<stateDir>/plugins/<id>/`, after checking its manifest. Like the rest of the state dir
 * (src/host-contract/private-fs.ts) it is private: the state dir and `plugins/` are created
 * 0700, and what is installed loses the group's and others' bits (a file 0644 becomes 0600,
 * an executable keeps its owner's x; symlinks to the host's dependencies are left as they are). Dependencies the
 * gateway already has in a satisfying version are linked from the gateway's
 * `node_modules`; otherwise `npm install --omit=dev` runs in the plugin dir.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import * as tar from "tar";
import { readManifest } from "./manifest";
import { linkHostDependencies } from "./link-dependencies";
import { mkdirPrivate } from "../../host-contract/private-fs";

export interface InstallResult {
  id: string;
  version: string;
  dir: string;
  /** Version that was replaced, when the plugin was installed before. */
  replaced?: string;
  dependencies: "none" | "linked" | "npm-install";
}

export interface InstallOptions {
  source: string;
  pluginsDir: string;
  /** Package root whose node_modules may provide dependencies. */
  hostRoot: string;
  /** Runs `npm install` (injectable for tests). */
  npmInstall?: (dir: string) => void;
}

const SKIP = new Set(["node_modules", ".git", ".gateway"]);

function defaultNpmInstall(dir: string): void {
  const res = spawnSync("npm", ["install", "--omit=dev", "--no-audit", "--no-fund", "--no-package-lock"], { cwd: dir, stdio: "inherit" });
  if (res.status !== 0) throw new Error(`npm install failed in ${dir} (exit ${res.status ?? res.signal})`);
}

/** Clears the group's and others' permission bits of `dir` and everything below it (symlinks are not followed). */
function makePrivate(dir: string): void {
  const walk = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink()) return;
    fs.chmodSync(p, st.mode & 0o700);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) walk(path.join(p, name));
  };
  walk(dir);
}

export async function installPlugin(opts: InstallOptions): Promise<InstallResult> {
  const source = path.resolve(opts.source);
  if (!fs.existsSync(source)) throw new Error(`${opts.source} does not exist`);
  mkdirPrivate(opts.pluginsDir);
  const staging = fs.mkdtempSync(path.join(opts.pluginsDir, ".staging-"));
  try {
    if (fs.statSync(source).isDirectory()) {
      fs.cpSync(source, staging, { recursive: true, filter: (src) => !SKIP.has(path.basename(src)) || src === source });
    } else if (/\.(tgz|tar\.gz)$/.test(source)) {
      await tar.x({ file: source, cwd: staging, strip: 1 });
    } else {
      throw new Error(`${opts.source} is neither a directory nor a .tgz file`);
    }
    const res = readManifest(staging);
    if (!res.ok) throw new Error(`${opts.source} is not a valid plugin: ${res.reason.replace(staging, opts.source)}`);
    const { id, version } = res.manifest;
    const target = path.join(opts.pluginsDir, id);
    let replaced: string | undefined;
    if (fs.existsSync(target)) {
      const old = readManifest(target);
      replaced = old.ok ? old.manifest.version : "unknown";
    }
    const deps = linkHostDependencies(staging, opts.hostRoot);
    let dependencies: InstallResult["dependencies"] = deps.total === 0 ? "none" : "linked";
    if (deps.missing.length > 0) {
      (opts.npmInstall ?? defaultNpmInstall)(staging);
      dependencies = "npm-install";
    }
    makePrivate(staging);
    if (fs.existsSync(target)) fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(staging, target);
    return { id, version, dir: target, ...(replaced ? { replaced } : {}), dependencies };
  } finally {
    if (fs.existsSync(staging)) fs.rmSync(staging, { recursive: true, force: true });
  }
}
