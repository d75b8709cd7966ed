/**
 * The model allow-list inside OpenClaw (SPEC §15): what OpenClaw will let this
 * plugin's runs use, so that a request naming another model gets 400
 * `model_not_allowed` at once instead of a run that OpenClaw refuses later.
 *
 * - Without `plugins.entries.inbound-webhooks.subagent.allowModelOverride: true`,
 *   OpenClaw refuses every override: only the agent's configured model
 *   (`agents.defaults.model.primary`) may be named (the run then passes no override).
 * - With it, `…subagent.allowedModels` (canonical `provider/model` refs) when given,
 *   else the models OpenClaw lists in `agents.defaults.models`; with neither, any
 *   model (the allow-list is not enforced).
 * Aliases come from OpenClaw's `agents.defaults.models.<ref>.alias`.
 */
import type { AllowedModel, HostRuntime, ModelPolicy } from "../../host-contract/host-api";
import { PLUGIN_ID, section } from "./config-snapshot";

/** `agents.defaults.model` as a string or `{ primary }`. */
export function primaryModel(config: Readonly<Record<string, unknown>>): string | undefined {
  const model = section(section(config.agents).defaults).model;
  if (typeof model === "string" && model !== "") return model;
  const primary = section(model).primary;
  return typeof primary === "string" && primary !== "" ? primary : undefined;
}

export function allowedModels(config: Readonly<Record<string, unknown>>, entry: Readonly<Record<string, unknown>>): AllowedModel[] {
  const catalog = section(section(section(config.agents).defaults).models);
  const subagent = section(entry.subagent);
  const primary = primaryModel(config);
  let refs: string[];
  if (subagent.allowModelOverride !== true) refs = primary ? [primary] : [];
  else if (Array.isArray(subagent.allowedModels) && subagent.allowedModels.length > 0)
    refs = subagent.allowedModels.filter((r): r is string => typeof r === "string");
  else refs = Object.keys(catalog);
  if (refs.length > 0 && primary && !refs.includes(primary)) refs.push(primary);
  return [...new Set(refs)].map((ref) => {
    const alias = section(catalog[ref]).alias;
    return typeof alias === "string" && alias !== "" ? { ref, alias } : { ref };
  });
}

/**
 * Where the allow-list comes from, named in a refusal: without the override OpenClaw
 * admits only the agent's model — also when none is configured (an empty list then
 * refuses every named model: OpenClaw would refuse the run after the 202).
 */
export function modelPolicy(entry: Readonly<Record<string, unknown>>): ModelPolicy {
  const subagent = section(entry.subagent);
  const key = `plugins.entries.${PLUGIN_ID}.subagent`;
  if (subagent.allowModelOverride !== true)
    return { source: `OpenClaw admits only the agent's agents.defaults.model unless ${key}.allowModelOverride is true`, enforcedWhenEmpty: true };
  const listed = Array.isArray(subagent.allowedModels) && subagent.allowedModels.length > 0;
  return { source: listed ? `${key}.allowedModels` : "agents.defaults.models", enforcedWhenEmpty: false };
}

export function createModels(config: Readonly<Record<string, unknown>>, entry: Readonly<Record<string, unknown>>): HostRuntime["models"] {
  const list = allowedModels(config, entry);
  return {
    resolve: (refOrAlias) => list.find((m) => m.alias === refOrAlias)?.ref ?? refOrAlias,
    allowList: () => list.map((m) => ({ ...m })),
    policy: () => modelPolicy(entry),
  };
}
