/**
 * What OpenClaw's refusals mean, in one place: "the host is unavailable" (it drains for a stop or a
 * restart, its gateway instance is closing, the plugin's generation retired in a reload) or anything
 * else, which is the run's own failure.
 *
 * A refusal of the first kind says nothing about the run: the plugin answers it with the turn result
 * `unavailable` (host contract), which the run layer never records as `failed` — the run is recovered at
 * the next start like any run a restart cut off (`interrupted`, or run again with `runs.retryInterrupted`),
 * or, when OpenClaw refused to start it, it stays queued.
 *
 * The texts are OpenClaw 2026.9.6's own (its dist: process/gateway-work-admission, the gateway instance
 * runtime, the plugin cache), matched as fixed substrings, never as patterns: OpenClaw hands some of them
 * on inside another sentence (a run's `error`, `Error: …`). `GatewayDrainingError` is also known by its
 * class name when OpenClaw throws it.
 */

/** Fixed texts of OpenClaw's "not now, I am going away" refusals (2026.9.6). */
export const HOST_UNAVAILABLE_TEXTS: readonly string[] = [
  // GatewayDrainingError's default, thrown to work that asks for admission once the drain began.
  "Gateway is draining; new tasks are not accepted",
  // GatewayDrainingError of the restart drain's own abort, of a runtime reset, of a retired continuation.
  "gateway is draining for restart",
  "gateway runtime reset",
  "gateway root work continuation is no longer active",
  // The gateway instance closing (server-instance-runtime): "… for agent turn", "… for recovery notice", "… for <method>".
  "Gateway instance dispatch unavailable for ",
  "Gateway instance lifecycle dispatch unavailable for ",
  // A plugin reload retired the inventory the call was made under (plugin-cache's retainPluginCache).
  "Plugin inventory has retired; begin a new plugin operation.",
  // A plugin reload replaced the runtime the call was made through (the plugin loader's resolveDelegatedRuntime:
  // `Plugin "<id>" runtime is no longer active.`), seen as a run's waitForRun in a reload with the run in flight.
  '" runtime is no longer active.',
  // PluginInstanceUnavailableError of a retired plugin instance: `Plugin <id> was reloaded or disabled; use its current tools.`
  " was reloaded or disabled; use its current tools.",
];

/** OpenClaw's error class of the drain (its `name`). */
export const GATEWAY_DRAINING_ERROR = "GatewayDrainingError";

function textOf(refusal: unknown): string {
  if (typeof refusal === "string") return refusal;
  if (refusal instanceof Error) return refusal.message;
  if (refusal !== null && typeof refusal === "object" && typeof (refusal as { message?: unknown }).message === "string")
    return (refusal as { message: string }).message;
  return "";
}

/** True when `refusal` (an error OpenClaw threw, or the `error` text of a run it ended) means OpenClaw is unavailable, not that the run failed. */
export function isHostUnavailable(refusal: unknown): boolean {
  if (refusal !== null && typeof refusal === "object" && (refusal as { name?: unknown }).name === GATEWAY_DRAINING_ERROR) return true;
  const text = textOf(refusal);
  return text !== "" && HOST_UNAVAILABLE_TEXTS.some((known) => text.includes(known));
}
