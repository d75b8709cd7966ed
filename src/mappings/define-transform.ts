/**
 * The contract between a mapping and its code transform (SPEC §6.3), exported
 * from the package for transform authors. This module has no imports so the
 * transform loader can hand it to transforms as the `inbound-webhooks` module
 * without loading the rest of the plugin.
 */

/** What a transform receives. Credentials (auth/signature headers, `?token=`) are already removed. */
export interface TransformContext {
  /** The parsed request body (a JSON object; form posts with a `payload` field are unwrapped). */
  payload: Record<string, unknown>;
  /** Lower-cased request headers without credentials. */
  headers: Record<string, string>;
  /** Query parameters without `token`. */
  query: Record<string, string>;
  /** The hook name: sub-path after `{hooks.path}/`, slashes trimmed. */
  path: string;
  /** Request URL relative to the gateway root, without any token. */
  url: string;
  /** Time of the request, ISO-8601 UTC. */
  now: string;
  /** The mapping this transform runs for. */
  mapping: { id: string };
  /** forEach mappings: the array element this call builds the action of (the transform runs once per element). */
  item?: unknown;
  /** forEach mappings: the element's position in the array (0-based). */
  index?: number;
}

/**
 * Fields a transform may set; they are merged over the action built from the
 * mapping and then validated exactly like a direct `/wake` or `/agent` request.
 * `kind` switches between a wake and an agent action.
 */
export interface TransformOverride {
  kind?: "wake" | "agent";
  /** Wake: the system-event text. */
  text?: string;
  /** Wake: `now` | `next-heartbeat`. */
  mode?: "now" | "next-heartbeat";
  /** Agent: the message of the run. */
  message?: string;
  name?: string;
  sessionKey?: string;
  wakeMode?: "now" | "next-heartbeat";
  deliver?: boolean;
  channel?: string;
  to?: string;
  model?: string;
  thinking?: "off" | "minimal" | "low" | "medium" | "high" | "xhigh";
  /** The agent the run goes to (hosts with several agents, e.g. OpenClaw); subject to hooks.allowedAgentIds. */
  agentId?: string;
  timeoutSeconds?: number;
  allowUnsafeExternalContent?: boolean;
}

/** An override, or `null` to skip the request (204, nothing dispatched), or `undefined` to keep the mapping's action. */
export type TransformResult = TransformOverride | null | undefined;

/** A transform: may be async; bounded by `hooks.transformTimeoutMs`, which all its calls of one request (a forEach's items) share. */
export type TransformFn = (ctx: TransformContext) => TransformResult | Promise<TransformResult>;

/**
 * Identity helper that gives a transform its types.
 *
 * @example
 * import { defineTransform } from "inbound-webhooks";
 * export default defineTransform((ctx) => {
 *   const event = ctx.headers["x-github-event"];
 *   if (event !== "push") return null; // 204, nothing dispatched
 *   return { message: `Push to ${String((ctx.payload.repository as { full_name?: string })?.full_name)}` };
 * });
 */
export function defineTransform<F extends TransformFn>(fn: F): F {
  return fn;
}
