/**
 * Session-key confinement (SPEC §5.1): request- and template-supplied keys stay
 * in the hook namespace, so no payload can address the main session or a
 * user's chat sessions.
 */
import { randomUUID } from "node:crypto";

/** The namespace every confined session key may use: the prefix added to a key that starts with no allowed prefix. */
export const HOOK_SESSION_PREFIX = "hook:";

/**
 * Returns `key` when it starts with one of `prefixes` (empty prefixes are
 * ignored), else `hook:<key>`.
 *
 * @example confineSessionKey("main", ["hook:"]) // "hook:main"
 * @example confineSessionKey("hook:crm-1", ["hook:"]) // "hook:crm-1"
 */
export function confineSessionKey(key: string, prefixes: readonly string[]): string {
  const allowed = prefixes.some((p) => p.length > 0 && key.startsWith(p));
  return allowed ? key : `${HOOK_SESSION_PREFIX}${key}`;
}

/** A fresh key for a run that did not ask for one: `hook:<uuid v4>`. */
export function defaultSessionKey(idGen: () => string = randomUUID): string {
  return `${HOOK_SESSION_PREFIX}${idGen()}`;
}
