/**
 * Actions: what a hook request turns into after validation. Direct `/wake` and
 * `/agent` bodies and mapped hooks (mapping + template/transform) all produce the
 * same raw shapes, which go through the same validators (src/actions/validate-*.ts)
 * and the same dispatcher.
 */
import type { ThinkingLevel } from "../host-contract/host-api";

/** When a wake (or a run's summary) reaches the main session's agent. */
export const WAKE_MODES = ["now", "next-heartbeat"] as const;
export type WakeMode = (typeof WAKE_MODES)[number];

/** What a hook request turns into. */
export const ACTION_KINDS = ["wake", "agent"] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

/** Where an action came from: used for the safety wrapper's source metadata and logs. */
export interface ActionSource {
  /** Hook name: "wake", "agent", or the mapped sub-path. */
  hook: string;
  /** Id of the matched mapping, for mapped hooks. */
  mappingId?: string;
  requestId: string;
  /** When true the content reaches sessions unwrapped (mapping opt-in only). */
  allowUnsafeExternalContent: boolean;
}

/** A validated wake action. `text` is the raw (unwrapped) hook-supplied text. */
export interface WakeAction {
  kind: "wake";
  text: string;
  mode: WakeMode;
}

/** A validated agent action. `message` is the raw (unwrapped) hook-supplied message. */
export interface AgentAction {
  kind: "agent";
  message: string;
  /** Control characters stripped, ≤ 200 chars, default "Hook". */
  name: string;
  /** Confined to the hook namespace (§5.1); default `hook:<uuid>`. */
  sessionKey: string;
  wakeMode: WakeMode;
  deliver: boolean;
  /** "last" or a channel the host offers. */
  channel: string;
  /** Normalised recipient (E.164 for phone channels). */
  to?: string;
  /** Resolved model ref (aliases resolved), when given. */
  model?: string;
  thinking?: ThinkingLevel;
  /** The agent the run goes to, when the request or mapping named one (absent: the host's default agent). */
  agentId?: string;
  /** Effective timeout (request value or the configured default). */
  timeoutSeconds: number;
}

export type HookAction = WakeAction | AgentAction;

/** Result of accepting an action, rendered as the 2xx body. */
export type DispatchResult = { kind: "wake"; mode: WakeMode } | { kind: "agent"; runId: string; sessionKey: string };
