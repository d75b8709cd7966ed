/** The host contract's refusal of work when a bounded queue is full (part of host-api, SPEC §2.1). */

/**
 * What a host throws (or rejects with) when it refuses work because a bounded
 * queue is full — e.g. `enqueueSystemEvent` on a main session that already holds
 * `session.main.maxPending` events. The work did not happen; a plugin answers its
 * sender 503 `overloaded` with `Retry-After: retryAfterSeconds`. An additive part of
 * the contract: hosts need not refuse, and to a plugin that does not know the
 * shape it is an ordinary Error.
 */
export interface HostOverloadedError extends Error {
  code: "overloaded";
  /** When a retry may succeed, in seconds (≥ 1). */
  retryAfterSeconds: number;
}

/** Creates a HostOverloadedError (for hosts). */
export function hostOverloadedError(message: string, retryAfterSeconds: number): HostOverloadedError {
  return Object.assign(new Error(message), {
    name: "HostOverloadedError",
    code: "overloaded" as const,
    retryAfterSeconds: Math.max(1, Math.ceil(retryAfterSeconds)),
  });
}

/** True for an error with the HostOverloadedError shape (for plugins; checks the shape, not the class). */
export function isHostOverloadedError(e: unknown): e is HostOverloadedError {
  return (
    e instanceof Error && (e as Partial<HostOverloadedError>).code === "overloaded" && typeof (e as Partial<HostOverloadedError>).retryAfterSeconds === "number"
  );
}
