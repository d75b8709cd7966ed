/**
 * Failed dashboard logins, counted per client address in a fixed window: after
 * `maxFailures` wrong tokens within `windowMs` that client gets 429 (with the
 * seconds until the window ends) until the window is over — a right token then
 * works again. Guessing the operator token through the login form is thereby as
 * slow as the window allows.
 *
 * @example
 *   const throttle = createLoginThrottle();
 *   const wait = throttle.blockedFor(ip);   // seconds, 0 = may try
 *   if (!ok) throttle.fail(ip);
 */
export const DEFAULT_LOGIN_MAX_FAILURES = 5;
export const DEFAULT_LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Clients tracked at most (the oldest entry goes first). */
const MAX_CLIENTS = 10_000;

export interface LoginThrottleOptions {
  maxFailures?: number;
  windowMs?: number;
  now?: () => number;
}

export interface LoginThrottle {
  /** Seconds until `client` may try again; 0 when it may now. */
  blockedFor(client: string): number;
  fail(client: string): void;
  succeed(client: string): void;
}

export function createLoginThrottle(opts: LoginThrottleOptions = {}): LoginThrottle {
  const maxFailures = opts.maxFailures ?? DEFAULT_LOGIN_MAX_FAILURES;
  const windowMs = opts.windowMs ?? DEFAULT_LOGIN_WINDOW_MS;
  const now = opts.now ?? Date.now;
  const failures = new Map<string, { count: number; resetAt: number }>();
  const current = (client: string) => {
    const e = failures.get(client);
    if (e && e.resetAt <= now()) {
      failures.delete(client);
      return undefined;
    }
    return e;
  };
  return {
    blockedFor(client) {
      const e = current(client);
      return e && e.count >= maxFailures ? Math.max(1, Math.ceil((e.resetAt - now()) / 1000)) : 0;
    },
    fail(client) {
      const e = current(client);
      if (e) e.count += 1;
      else {
        if (failures.size >= MAX_CLIENTS) failures.delete(failures.keys().next().value!);
        failures.set(client, { count: 1, resetAt: now() + windowMs });
      }
    },
    succeed: (client) => void failures.delete(client),
  };
}
