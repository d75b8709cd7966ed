/**
 * What the host runs the plugin as (SPEC §16; host API 2.2 `PluginApi.role`): a
 * `"consumer"` runs agent turns (the normal role); a `"receiver"` (the embedded gateway's
 * `gateway start --role receiver`) verifies, dedupes, stores and answers, and runs no
 * agent turn.
 */
export type HookRole = "consumer" | "receiver";
