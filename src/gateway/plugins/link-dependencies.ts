/**
 * Links a plugin's runtime dependencies (`package.json#dependencies`) from the
 * gateway's own `node_modules` when it has them in a version satisfying the
 * plugin's range — so a plugin packed from this package (or one sharing its
 * libraries) runs without a network install. Dependencies the plugin already
 * bundles are left alone. Reports the ones the host cannot provide.
 * `optionalDependencies` and optional `peerDependencies` (`peerDependenciesMeta.<name>.optional`:
 * better-sqlite3 in this package's own tarball, which Node ≥ 22.13 does not need) are linked when
 * the host has them and otherwise left out, never reported missing. A required peer is the host's
 * to provide: linked, or reported missing.
 */
import fs from "node:fs";
import path from "node:path";
import semver from "semver";

export interface LinkResult {
  total: number;
  linked: string[];
  bundled: string[];
  missing: string[];
}

function hostVersion(hostRoot: string, name: string): { dir: string; version: string } | undefined {
  const dir = path.join(hostRoot, "node_modules", ...name.split("/"));
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version?: string };
    return pkg.version ? { dir, version: pkg.version } : undefined;
  } catch {
    return undefined;
  }
}

function satisfies(version: string, range: string): boolean {
  return semver.validRange(range) !== null && semver.satisfies(version, range, { includePrerelease: true });
}

export function linkHostDependencies(pluginDir: string, hostRoot: string): LinkResult {
  const result: LinkResult = { total: 0, linked: [], bundled: [], missing: [] };
  let deps: Record<string, string> = {};
  let optional: Record<string, string> = {};
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(pluginDir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
      peerDependencies?: Record<string, string>;
      peerDependenciesMeta?: Record<string, { optional?: boolean } | undefined>;
    };
    const peers = pkg.peerDependencies ?? {};
    const optionalPeers = Object.fromEntries(Object.entries(peers).filter(([name]) => pkg.peerDependenciesMeta?.[name]?.optional === true));
    optional = { ...optionalPeers, ...(pkg.optionalDependencies ?? {}) };
    deps = { ...peers, ...(pkg.dependencies ?? {}), ...optional };
  } catch {
    return result;
  }
  const plan: Array<{ name: string; dir: string }> = [];
  for (const [name, range] of Object.entries(deps)) {
    const bundled = fs.existsSync(path.join(pluginDir, "node_modules", ...name.split("/"), "package.json"));
    const host = bundled ? undefined : hostVersion(hostRoot, name);
    if (!bundled && name in optional && !(host && satisfies(host.version, range))) continue;
    result.total += 1;
    if (bundled) {
      result.bundled.push(name);
      continue;
    }
    if (host && satisfies(host.version, range)) plan.push({ name, dir: host.dir });
    else result.missing.push(name);
  }
  if (result.missing.length > 0) return result;
  for (const { name, dir } of plan) {
    const link = path.join(pluginDir, "node_modules", ...name.split("/"));
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(dir, link, "dir");
    result.linked.push(name);
  }
  return result;
}
