/**
 * Auth-failure throttling (SPEC §4.1): more than `maxFailures` failed attempts
 * from one client within `windowSeconds` → 429 with `Retry-After`. A correct
 * token clears the client's count. Memory is bounded: at most `maxFailures + 1`
 * timestamps per client and `maxClients` clients.
 */

export interface AuthThrottleOptions {
  maxFailures: number;
  windowSeconds: number;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Clients tracked at most (oldest dropped first). Default 10000. */
  maxClients?: number;
}

export interface FailureVerdict {
  /** True when this failure is over the limit: answer 429 instead of 401. */
  throttled: boolean;
  /** Seconds until the oldest failure in the window expires (≥ 1). */
  retryAfterSeconds: number;
}

export interface AuthThrottle {
  /** Records one failed attempt of `client` and says whether it is over the limit. */
  recordFailure(client: string): FailureVerdict;
  /** Forgets the client's failures (after a correct token). */
  clear(client: string): void;
  /** Number of clients currently tracked. */
  readonly size: number;
}

export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const clock = options.clock ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const keep = options.maxFailures + 1;
  const maxClients = options.maxClients ?? 10_000;
  const failures = new Map<string, number[]>();

  const prune = (list: number[], now: number): number[] => list.filter((t) => now - t < windowMs);

  const evict = (now: number): void => {
    for (const [client, list] of failures) {
      if (prune(list, now).length === 0) failures.delete(client);
    }
    while (failures.size >= maxClients) {
      const oldest = failures.keys().next().value as string;
      failures.delete(oldest);
    }
  };

  return {
    recordFailure(client) {
      const now = clock();
      let list = failures.get(client);
      if (!list && failures.size >= maxClients) evict(now);
      list = prune(list ?? [], now);
      list.push(now);
      if (list.length > keep) list.splice(0, list.length - keep);
      failures.delete(client);
      failures.set(client, list);
      const throttled = list.length > options.maxFailures;
      const retryAfterSeconds = Math.max(1, Math.ceil((list[0] + windowMs - now) / 1000));
      return { throttled, retryAfterSeconds };
    },
    clear(client) {
      failures.delete(client);
    },
    get size() {
      return failures.size;
    },
  };
}
