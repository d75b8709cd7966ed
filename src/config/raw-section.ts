/**
 * Reading the raw, not yet validated config snapshot: for the few places that need
 * a value before (or without) `resolveConfig()`, such as the mail watcher's default
 * hook URL and `mail setup` reading the file it is about to edit.
 */
import { plainObject } from "../core/plain-object";

/**
 * `parent[key]` when it is a plain object, else `{}` (missing, null, an array or a scalar).
 *
 * @example rawSection({ hooks: { path: "/in" } }, "hooks") // { path: "/in" }
 * @example rawSection({ hooks: [] }, "hooks") // {}
 */
export function rawSection(parent: Readonly<Record<string, unknown>>, key: string): Readonly<Record<string, unknown>> {
  return plainObject(parent[key]);
}
