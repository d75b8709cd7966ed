/**
 * Confinement of transform modules (SPEC §6.3), checked at activation: a module
 * path is relative, has no `..`, names a supported file that exists, its real
 * path (symbolic links followed) is inside the real transforms directory, and
 * the file has exactly one link. A hard link shares its inode with a name that
 * may be anywhere on the same file system, so no path check can prove it is
 * inside: a file with more than one link is refused.
 */
import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "../../core/errors";
import { isInside } from "../../host-contract/is-inside";

export const TRANSFORM_EXTENSIONS: readonly string[] = [".js", ".mjs", ".cjs", ".ts"];

/** A transform module that passed the start-up checks. */
export interface ResolvedTransformModule {
  /** As configured, relative to the directory. */
  module: string;
  exportName?: string;
  /** The directory's real path (symbolic links resolved). */
  root: string;
  /** Lexical absolute path of the module (what gets loaded). */
  file: string;
}

function realpathOrUndefined(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/**
 * Refuses a transforms directory outside the config directory (lexically, and
 * through symbolic links when both exist). `key` names the config key.
 */
export function assertTransformsDirInside(dir: string, configDir: string, key = "hooks.transformsDir"): void {
  const base = path.resolve(configDir);
  const target = path.resolve(base, dir);
  const rule = `${key} must be inside the config directory (${base})`;
  if (!isInside(base, target)) throw new ConfigError(`${rule}; "${dir}" is outside it`);
  const realBase = realpathOrUndefined(base);
  const realTarget = realpathOrUndefined(target);
  if (realBase && realTarget && !isInside(realBase, realTarget)) {
    throw new ConfigError(`${rule}; "${dir}" resolves outside it through a symbolic link`);
  }
}

/**
 * Checks one `transform.module` against its directory. `key` names the config
 * key (e.g. `hooks.mappings[2].transform.module`), `dirLabel` the directory
 * (e.g. `hooks.transformsDir`). Throws ConfigError naming both.
 */
export function resolveTransformModule(opts: { module: string; exportName?: string; dir: string; key: string; dirLabel: string }): ResolvedTransformModule {
  const { module, key, dirLabel } = opts;
  if (typeof module !== "string" || module.trim() === "") throw new ConfigError(`${key} must be a non-empty path relative to ${dirLabel}`);
  if (path.isAbsolute(module) || path.win32.isAbsolute(module)) {
    throw new ConfigError(`${key} must be a path relative to ${dirLabel}; "${module}" is absolute`);
  }
  if (module.split(/[\\/]/).includes("..")) {
    throw new ConfigError(`${key} must stay inside ${dirLabel}; "${module}" contains ".."`);
  }
  const ext = path.extname(module).toLowerCase();
  if (!TRANSFORM_EXTENSIONS.includes(ext)) {
    throw new ConfigError(`${key} must name a ${TRANSFORM_EXTENSIONS.join(", ")} file; "${module}" is not one`);
  }
  const dir = path.resolve(opts.dir);
  const file = path.resolve(dir, module);
  if (!isInside(dir, file)) throw new ConfigError(`${key} must stay inside ${dirLabel}; "${module}" is outside it`);
  const root = realpathOrUndefined(dir);
  if (!root) throw new ConfigError(`${key}: ${dirLabel} (${dir}) does not exist`);
  const real = realpathOrUndefined(file);
  if (!real || !fs.statSync(real).isFile()) throw new ConfigError(`${key}: "${module}" does not exist in ${dirLabel} (${dir})`);
  if (!isInside(root, real)) {
    throw new ConfigError(`${key} must stay inside ${dirLabel}; "${module}" resolves outside it through a symbolic link`);
  }
  const links = fs.statSync(real).nlink;
  if (links > 1) {
    throw new ConfigError(
      `${key} must be a file with a single link inside ${dirLabel}; "${module}" has ${links} hard links, so it may be a file from outside the directory (copy it instead of linking it)`,
    );
  }
  return { module, exportName: opts.exportName, root, file };
}

/** Re-checks at load time that the file still resolves inside its directory and has one link (it may have been replaced). */
export function realPathInside(mod: ResolvedTransformModule): string {
  const real = fs.realpathSync(mod.file);
  if (!isInside(mod.root, real)) throw new Error(`transform module "${mod.module}" now resolves outside its directory`);
  if (fs.statSync(real).nlink > 1) throw new Error(`transform module "${mod.module}" is now a hard link (more than one link)`);
  return real;
}
