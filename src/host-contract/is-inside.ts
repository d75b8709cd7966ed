/**
 * Directory confinement, one rule for host and plugin: a plugin's `main` and
 * `transformsDir` stay inside the plugin directory (gateway), a transform module
 * inside `hooks.transformsDir` (plugin, SPEC §6.3).
 */
import path from "node:path";

/**
 * True when `child` is `parent` or below it, compared lexically (resolve symlinks
 * first where they matter). A sibling whose name starts with `..` is inside.
 *
 * @example isInside("/srv/hooks", "/srv/hooks/gh.js") // true
 * @example isInside("/srv/hooks", "/srv/other/gh.js") // false
 */
export function isInside(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  if (rel === "") return true;
  return !path.isAbsolute(rel) && rel.split(path.sep)[0] !== "..";
}
