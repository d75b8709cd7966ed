/**
 * Normalisation of configured URL paths (after the schema has checked their characters).
 */

/**
 * `hooks.path`: leading `/` added, repeated slashes collapsed, trailing `/` removed.
 *
 * @example normaliseHookPath("hooks///") // → "/hooks"
 */
export function normaliseHookPath(path: string): string {
  const trimmed = normaliseMatchPath(path);
  return `/${trimmed}`;
}

/**
 * `match.path` of a mapping (the sub-path after `{hooks.path}/`): repeated slashes
 * collapsed, leading and trailing slashes removed.
 *
 * @example normaliseMatchPath("/github//push/") // → "github/push"
 */
export function normaliseMatchPath(path: string): string {
  return path.replace(/\/{2,}/g, "/").replace(/^\/+|\/+$/g, "");
}
