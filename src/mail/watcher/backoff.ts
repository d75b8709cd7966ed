/**
 * Exponential backoff with a cap and optional jitter, plus an abortable sleep.
 * Used for IMAP reconnects and for hook post retries.
 */

export interface BackoffPolicy {
  /** Delay before the first retry. */
  initialMs: number;
  /** Upper bound of any computed delay. */
  maxMs: number;
  /** Growth factor per attempt (default 2). */
  factor?: number;
  /** Fraction of the delay randomised downwards, 0..1 (default 0.2). */
  jitter?: number;
}

export const DEFAULT_RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 60_000, factor: 2, jitter: 0.2 };
export const DEFAULT_POST_BACKOFF: BackoffPolicy = { initialMs: 1000, maxMs: 60_000, factor: 2, jitter: 0.2 };

/**
 * Delay before retry number `attempt` (1-based): initial × factor^(attempt-1), capped,
 * minus up to `jitter` of it.
 *
 * @example backoffDelay(3, { initialMs: 1000, maxMs: 60000, jitter: 0 }) // 4000
 */
export function backoffDelay(attempt: number, policy: BackoffPolicy, random: () => number = Math.random): number {
  const factor = policy.factor ?? 2;
  const jitter = Math.min(Math.max(policy.jitter ?? 0.2, 0), 1);
  const raw = policy.initialMs * Math.pow(factor, Math.max(attempt - 1, 0));
  const capped = Math.min(raw, policy.maxMs);
  return Math.round(capped * (1 - jitter * random()));
}

/** Resolves after `ms`, or early (with `false`) when `signal` aborts. Never rejects. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
