/**
 * The one rule for naming the plugin's own config keys in its sentences (host contract
 * 1.4, `PluginApi.configSection`): the plugin writes its keys as the embedded gateway
 * spells them (`hooks.maxBodyBytes`), and every sentence that leaves it — an HTTP error
 * answer, a log line, a stored run error or summary, a config problem at start — goes
 * through the namer of the section path its host gave, so inside OpenClaw, where
 * `hooks.*` is OpenClaw's own section, the same sentence names
 * `plugins.entries.inbound-webhooks.config.maxBodyBytes`.
 *
 * A key is `hooks` followed by `.` or `[` and not inside another word, key or path
 * (`webhooks.path`, `payload.hooks.x`, `/webhooks/hooks.json` stay); the word alone is
 * no key (`hooks disabled`, `mapped hooks`). Linear: one pass, no backtracking.
 *
 * @example
 *   configKeyNamer("plugins.entries.inbound-webhooks.config")("hooks.token is required when hooks.enabled is true")
 *   // "plugins.entries.inbound-webhooks.config.token is required when plugins.entries.inbound-webhooks.config.enabled is true"
 *   configKeyNamer()("hooks.token is required") // unchanged: the embedded gateway's section is `hooks`
 */

/** The section of the plugin's settings when the host names none (the embedded gateway, hosts before 1.4). */
export const DEFAULT_CONFIG_SECTION = "hooks";

/** A sentence of the plugin → the same sentence naming its keys where the host keeps them. */
export type KeyNamer = (sentence: string) => string;

const KEY_OF_SECTION = /(^|[^\w./-])hooks(?=[.[])/gm;
/** A dotted config path: `plugins.entries.inbound-webhooks.config`. */
const SECTION_PATH = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/** The namer of `section` (a host's `api.configSection`); absent, `hooks` or not a dotted path: sentences stay as written. */
export function configKeyNamer(section?: string): KeyNamer {
  if (section === undefined || section === DEFAULT_CONFIG_SECTION || !SECTION_PATH.test(section)) return (sentence) => sentence;
  return (sentence) => sentence.replace(KEY_OF_SECTION, (_m, before: string) => `${before}${section}`);
}

/** `e` as an Error whose message names the keys with `keys` (its `name`, e.g. ConfigError, kept). */
export function withKeysNamed(e: unknown, keys: KeyNamer): Error {
  if (!(e instanceof Error)) return new Error(keys(String(e)));
  const named = keys(e.message);
  if (named === e.message) return e;
  e.message = named;
  return e;
}
