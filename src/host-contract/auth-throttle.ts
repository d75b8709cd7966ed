/**
 * Auth-failure throttling (SPEC §4.1, §9 "throttles never forget a blocked
 * client"): more than `maxFailures` failed attempts from one client within
 * `windowSeconds` → 429 with `Retry-After`. A correct token clears the client's
 * count. One mechanism shared by the plugin and its host: the hooks pipeline
 * (src/intake/auth/authenticate.ts) and the embedded gateway's operator surfaces
 * (src/gateway/http/operator-throttle.ts) both count on it, which is why it lives
 * in the host contract.
 *
 * Memory is bounded: at most `maxFailures + 1` timestamps per client, at most
 * `maxClients` clients still counting (the one that failed least recently is
 * dropped first) and at most `maxThrottledClients` throttled clients. A client
 * that is currently throttled is never dropped to make room for others: a flood
 * of failures from fresh addresses cannot set it free. When even the throttled
 * table is full of clients still inside their window, the throttle is
 * saturated and fails closed: every failure from an untracked client is
 * answered 429 too, until entries expire (a correct token still passes).
 */

export interface AuthThrottleOptions {
  maxFailures: number;
  windowSeconds: number;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
  /** Clients counting failures (not throttled) tracked at most. Default 10000. */
  maxClients?: number;
  /** Throttled clients tracked at most (then the throttle fails closed). Default 10000. */
  maxThrottledClients?: number;
}

export interface FailureVerdict {
  /** True when this failure is over the limit: answer 429 instead of 401. */
  throttled: boolean;
  /** Seconds until the client is no longer throttled (≥ 1). */
  retryAfterSeconds: number;
}

export interface AuthThrottle {
  /** Records one failed attempt of `client` and says whether it is over the limit. */
  recordFailure(client: string): FailureVerdict;
  /** The client's current state without recording anything (throttled: its last failure was answered 429). */
  peek(client: string): FailureVerdict;
  /** Forgets the client's failures (after a correct token). */
  clear(client: string): void;
  /** Number of clients currently tracked (counting and throttled). */
  readonly size: number;
}

export const DEFAULT_MAX_CLIENTS = 10_000;
export const DEFAULT_MAX_THROTTLED_CLIENTS = 10_000;

export function createAuthThrottle(options: AuthThrottleOptions): AuthThrottle {
  const clock = options.clock ?? Date.now;
  const windowMs = options.windowSeconds * 1000;
  const { maxFailures } = options;
  const keep = maxFailures + 1;
  const maxClients = options.maxClients ?? DEFAULT_MAX_CLIENTS;
  const maxThrottled = options.maxThrottledClients ?? DEFAULT_MAX_THROTTLED_CLIENTS;
  /** Clients under the limit, least recently failed first (Map insertion order). */
  const counting = new Map<string, number[]>();
  /** Clients over the limit, least recently failed first. Never evicted while throttled. */
  const throttled = new Map<string, number[]>();

  /** Failures still inside the window (lists are in ascending time order). */
  const recent = (list: readonly number[], now: number): number[] => {
    let i = 0;
    while (i < list.length && now - list[i] >= windowMs) i++;
    return list.slice(i);
  };
  /** Throttled while more than maxFailures failures are inside the window: until the oldest kept one leaves it. */
  const isOver = (list: readonly number[], now: number): boolean => list.length > maxFailures && now - list[0] < windowMs;
  const secondsUntil = (at: number, now: number): number => Math.max(1, Math.ceil((at - now) / 1000));

  /** Until when the throttled table is full of clients still throttled (cached so a flood does not rescan it each time). */
  let saturatedUntil = 0;
  /** True when no throttled client can be dropped to make room: every one is still inside its window. */
  const saturated = (now: number): boolean => {
    if (throttled.size < maxThrottled) return false;
    if (now < saturatedUntil) return true;
    let earliest = Infinity;
    for (const [client, list] of throttled) {
      if (!isOver(list, now)) throttled.delete(client);
      else earliest = Math.min(earliest, list[0] + windowMs);
    }
    saturatedUntil = throttled.size >= maxThrottled ? earliest : 0;
    return saturatedUntil > 0;
  };
  const keepCounting = (client: string, list: number[]): void => {
    if (counting.size >= maxClients) counting.delete(counting.keys().next().value as string);
    counting.set(client, list);
  };

  return {
    recordFailure(client) {
      const now = clock();
      let list = recent(throttled.get(client) ?? counting.get(client) ?? [], now);
      throttled.delete(client);
      counting.delete(client);
      list.push(now);
      if (list.length > keep) list = list.slice(list.length - keep);
      if (isOver(list, now) && !saturated(now)) {
        throttled.set(client, list);
        return { throttled: true, retryAfterSeconds: secondsUntil(list[0] + windowMs, now) };
      }
      keepCounting(client, list);
      // Saturated: fail closed for every failure until a throttled client's window ends.
      if (saturated(now)) return { throttled: true, retryAfterSeconds: secondsUntil(saturatedUntil, now) };
      return { throttled: false, retryAfterSeconds: secondsUntil(list[0] + windowMs, now) };
    },
    peek(client) {
      const now = clock();
      const list = throttled.get(client);
      if (list && isOver(list, now)) return { throttled: true, retryAfterSeconds: secondsUntil(list[0] + windowMs, now) };
      return { throttled: false, retryAfterSeconds: 1 };
    },
    clear(client) {
      counting.delete(client);
      throttled.delete(client);
    },
    get size() {
      return counting.size + throttled.size;
    },
  };
}
