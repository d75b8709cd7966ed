/**
 * Which agent a run may go to (SPEC §15, OpenClaw's agent routing): the `agentId` of a request, a mapping or a
 * preset must be an agent the host knows (`runtime.agents.known()`; the embedded gateway has one, `main`) and, when
 * `hooks.allowedAgentIds` is set, listed there — the default agent too, which a run without `agentId` goes to
 * (OpenClaw's rule for its own hooks). `*` in the list allows every agent; `[]` none. The refusal names the agents
 * that may be named.
 *
 * @example
 *   agentProblem("ops", { ids: ["main", "ops"], defaultId: "main" }, ["main"])
 *   // 'agentId "ops" is not in hooks.allowedAgentIds; use one of: main'
 */
import { DEFAULT_AGENTS, type KnownAgents } from "../host-contract/host-api";

/** `allowed` as the set of agents it allows of `known` (all of them when absent or with `*`). */
export function allowedAgents(known: KnownAgents, allowed: readonly string[] | undefined): string[] {
  if (allowed === undefined || allowed.includes("*")) return [...known.ids];
  return known.ids.filter((id) => allowed.includes(id));
}

function choice(ids: readonly string[]): string {
  return ids.length > 0 ? `use one of: ${ids.join(", ")}` : "no agent may be named (hooks.allowedAgentIds allows none the gateway knows)";
}

/** Why a run may not go to `agentId` (undefined: the default agent), or undefined when it may. */
export function agentProblem(agentId: string | undefined, known: KnownAgents = DEFAULT_AGENTS, allowed?: readonly string[]): string | undefined {
  const may = allowedAgents(known, allowed);
  if (agentId === undefined) {
    if (may.includes(known.defaultId)) return undefined;
    return `agentId is required: the default agent "${known.defaultId}" is not in hooks.allowedAgentIds; ${choice(may)}`;
  }
  if (may.includes(agentId)) return undefined;
  if (!known.ids.includes(agentId)) return `agentId "${agentId}" is not an agent the gateway knows; ${choice(may)}`;
  return `agentId "${agentId}" is not in hooks.allowedAgentIds; ${choice(may)}`;
}

/** What of the config names an agent: mappings (`hooks.mappings[i].agentId`), the presets' sections, `hooks.allowedAgentIds`. */
export interface AgentNamingConfig {
  mappings: ReadonlyArray<{ action: string; agentId?: string }>;
  github?: { agentId?: string };
  mail?: { agentId?: string };
  allowedAgentIds?: readonly string[];
}

/**
 * The config's problems with agents, a `<key> <rule>` line each (checked at activation, where the host's agents
 * are known): an agent the host does not know, one `hooks.allowedAgentIds` leaves out, an `agentId` on a wake
 * mapping (a wake goes to the main session of the default agent: it would be dropped silently).
 */
export function agentConfigProblems(config: AgentNamingConfig, known: KnownAgents = DEFAULT_AGENTS): string[] {
  const lines: string[] = [];
  const agents = `the gateway's agents: ${known.ids.join(", ")}`;
  (config.allowedAgentIds ?? []).forEach((id, i) => {
    if (id !== "*" && !known.ids.includes(id)) lines.push(`hooks.allowedAgentIds[${i}] "${id}" is not an agent the gateway knows (${agents})`);
  });
  const may = allowedAgents(known, config.allowedAgentIds);
  const check = (key: string, id: string | undefined) => {
    if (id === undefined) return;
    if (!known.ids.includes(id)) lines.push(`${key} "${id}" is not an agent the gateway knows (${agents})`);
    else if (!may.includes(id)) lines.push(`${key} "${id}" is not in hooks.allowedAgentIds (${choice(may)})`);
  };
  config.mappings.forEach((m, i) => {
    if (m.agentId !== undefined && m.action === "wake")
      lines.push(`hooks.mappings[${i}].agentId applies only to agent actions (a wake goes to the main session of the default agent)`);
    else check(`hooks.mappings[${i}].agentId`, m.agentId);
  });
  check("hooks.github.agentId", config.github?.agentId);
  check("hooks.mail.agentId", config.mail?.agentId);
  return lines;
}
