/**
 * The host contract's `runtime` (SPEC §2.1) built from OpenClaw's plugin runtime:
 *
 * - main session → OpenClaw's `agent:<agentId>:main`; `enqueueSystemEvent` →
 *   `api.runtime.system.enqueueSystemEvent(text, { sessionKey, agentId })`. OpenClaw
 *   keeps pending system events in memory and drops a text identical to one still
 *   pending (it answers false: the event is already there, which is what the plugin
 *   asked for).
 * - heartbeat → `api.runtime.system.requestHeartbeat({ source: "hook", intent: "immediate" })`
 *   (OpenClaw coalesces requests).
 * - agent turns → agent-turn.ts; the agents a run may name → `agents.entries` (legacy `agents.list`; knownAgents); thinking is
 *   not applied (OpenClaw's subagent runtime takes no thinking level): `agents.thinkingNotApplied`.
 * - channels → the channels configured in OpenClaw (`channels.<id>`, unless
 *   `enabled: false`); the last route → the main session's last delivery as OpenClaw
 *   records it (`runtime.agent.session.getSessionEntry`); delivery → OpenClaw's own
 *   `send` (its direct outbound-delivery gateway method), so a reply goes out through
 *   the channel plugins OpenClaw runs.
 * - models → models.ts.
 */
import { randomUUID } from "node:crypto";
import type { HostRuntime, KnownAgents, LastRoute } from "../../host-contract/host-api";
import type { OpenClawRuntime } from "./openclaw-api";
import { createSubagentTurns } from "./agent-turn";
import { createModels, primaryModel } from "./models";
import type { ServiceScope } from "./service-scope";
import { section } from "./config-snapshot";
import type { DetachedWork } from "./detached-work";

export interface OpenClawHostRuntimeOptions {
  runtime: OpenClawRuntime;
  /** OpenClaw's whole config. */
  config: Readonly<Record<string, unknown>>;
  /** `plugins.entries.inbound-webhooks` (for `subagent.allowModelOverride` / `allowedModels`). */
  entry: Readonly<Record<string, unknown>>;
  /** The service's context: agent runs and deliveries are started in it, outside any request's scope. */
  scope: ServiceScope;
  /** OpenClaw's `runDetachedWebhookWork`, looked up on first use (detached-work.ts); absent: runs start untracked. */
  detachedWork?: () => Promise<DetachedWork | undefined>;
}

/**
 * OpenClaw's agent roster: the keyed `agents.entries` of 2026.9.6 (the key is the id), else the legacy
 * `agents.list` array OpenClaw still reads (`openclaw doctor --fix` moves it to `agents.entries`).
 */
function agentEntries(config: Readonly<Record<string, unknown>>): Array<Record<string, unknown>> {
  const agents = section(config.agents);
  if (agents.entries !== undefined && agents.entries !== null && typeof agents.entries === "object" && !Array.isArray(agents.entries)) {
    return Object.entries(agents.entries as Record<string, unknown>)
      .filter(([, v]) => v !== null && typeof v === "object" && !Array.isArray(v))
      .map(([id, v]) => ({ ...(v as Record<string, unknown>), id }));
  }
  return Array.isArray(agents.list) ? agents.list.map(section) : [];
}

/** The default agent: the one marked `default`, else the first configured, else `main` (OpenClaw's rule). */
export function defaultAgentId(config: Readonly<Record<string, unknown>>): string {
  const agents = agentEntries(config);
  if (agents.length === 0) return "main";
  const chosen = agents.find((a) => a.default === true) ?? agents[0]!;
  return typeof chosen.id === "string" && chosen.id !== "" ? chosen.id : "main";
}

/** OpenClaw's agents (the ids of `agents.entries`, or of the legacy `agents.list`, lower-cased as OpenClaw keeps them; none: `main`) and its default agent. */
export function knownAgents(config: Readonly<Record<string, unknown>>): KnownAgents {
  const ids = agentEntries(config)
    .map((a) => a.id)
    .filter((id): id is string => typeof id === "string" && id.trim() !== "");
  const unique = [...new Set(ids.map((id) => id.trim().toLowerCase()))];
  return { ids: unique.length > 0 ? unique : ["main"], defaultId: defaultAgentId(config).trim().toLowerCase() };
}

/** Why `thinking` is not applied inside OpenClaw (its `api.runtime.subagent.run` takes no thinking level, 2026.9.6). */
export const OPENCLAW_THINKING_NOT_APPLIED = "OpenClaw's subagent runtime takes none (runs use the agent's configured thinking level)";

/** Channel ids configured in OpenClaw (`channels.<id>` objects not switched off). */
export function configuredChannels(config: Readonly<Record<string, unknown>>): string[] {
  return Object.entries(section(config.channels))
    .filter(([, v]) => v !== null && typeof v === "object" && !Array.isArray(v) && (v as { enabled?: unknown }).enabled !== false)
    .map(([id]) => id)
    .sort();
}

/**
 * The route of a session's last delivery as OpenClaw records it on the session entry:
 * `delivery: { kind: "external", context: { channel, to } }` (2026.9.6; `internal`
 * and `none` have no route).
 */
export function lastRouteOf(entry: Record<string, unknown> | undefined): LastRoute | undefined {
  const delivery = section(entry?.delivery);
  if (delivery.kind !== "external") return undefined;
  const context = section(delivery.context);
  const channel = context.channel;
  if (typeof channel !== "string" || channel === "") return undefined;
  return typeof context.to === "string" && context.to !== "" ? { channel, to: context.to } : { channel };
}

export function createOpenClawHostRuntime(opts: OpenClawHostRuntimeOptions): HostRuntime {
  const { runtime, config } = opts;
  const agentId = defaultAgentId(config);
  const mainKey = `agent:${agentId}:main`;
  const offered = configuredChannels(config);
  const agents = knownAgents(config);
  return {
    sessions: {
      mainKey,
      // OpenClaw keeps pending system events in memory: the plugin keeps its wakes until a turn took them (llm_input).
      eventsInMemory: true,
      enqueueSystemEvent(sessionKey, text) {
        runtime.system.enqueueSystemEvent(text, { sessionKey, agentId });
      },
    },
    heartbeat: {
      requestNow: ({ reason }) => runtime.system.requestHeartbeat({ source: "hook", intent: "immediate", reason, agentId }),
    },
    agents: {
      ...createSubagentTurns(runtime, agentId, opts.scope, primaryModel(config), opts.detachedWork),
      known: () => agents,
      thinkingNotApplied: OPENCLAW_THINKING_NOT_APPLIED,
    },
    channels: {
      list: () => [...offered],
      resolveLast: (sessionKey) => lastRouteOf(runtime.agent?.session?.getSessionEntry?.({ sessionKey, agentId })),
      async deliver({ channel, to, text }) {
        if (!offered.includes(channel)) {
          throw new Error(`OpenClaw offers no channel "${channel}" (configured channels: ${offered.length > 0 ? offered.join(", ") : "none"})`);
        }
        const request = runtime.gateway?.request;
        if (!request) throw new Error("this OpenClaw version offers plugins no outbound send");
        await opts.scope.run(() =>
          request("send", { channel, ...(to !== undefined ? { to } : {}), message: text, idempotencyKey: `inbound-webhooks:${randomUUID()}` }),
        );
      },
    },
    models: createModels(config, opts.entry),
  };
}
