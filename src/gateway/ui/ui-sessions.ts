/**
 * Dashboard sessions: a random id (the cookie) → its CSRF token and expiry, kept
 * in memory only (a restart logs everyone out). Expired sessions are dropped when
 * seen and on each new login; at most `maxSessions` live at once (the oldest goes).
 *
 * @example
 *   const sessions = createUiSessionStore();
 *   const s = sessions.create();          // after a good login
 *   sessions.get(cookieValue)?.csrf;      // undefined once expired or logged out
 */
import crypto from "node:crypto";

/** A session lasts this long after login (no sliding renewal). */
export const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const DEFAULT_MAX_SESSIONS = 1000;

export interface UiSession {
  id: string;
  /** Sent back in forms (`_csrf`) or the `X-CSRF-Token` header of state-changing requests. */
  csrf: string;
  expiresAt: number;
}

export interface UiSessionStoreOptions {
  /** Default DEFAULT_SESSION_TTL_MS. */
  ttlMs?: number;
  /** Default DEFAULT_MAX_SESSIONS. */
  maxSessions?: number;
  /** Default Date.now. */
  now?: () => number;
  /** 32 random bytes, base64url; injectable for tests. */
  randomId?: () => string;
}

export interface UiSessionStore {
  readonly ttlMs: number;
  create(): UiSession;
  get(id: string | undefined): UiSession | undefined;
  delete(id: string): void;
  size(): number;
}

export function createUiSessionStore(opts: UiSessionStoreOptions = {}): UiSessionStore {
  const ttlMs = opts.ttlMs ?? DEFAULT_SESSION_TTL_MS;
  const max = opts.maxSessions ?? DEFAULT_MAX_SESSIONS;
  const now = opts.now ?? Date.now;
  const randomId = opts.randomId ?? (() => crypto.randomBytes(32).toString("base64url"));
  const sessions = new Map<string, UiSession>();
  const prune = () => {
    const t = now();
    for (const [id, s] of sessions) if (s.expiresAt <= t) sessions.delete(id);
  };
  return {
    ttlMs,
    create() {
      prune();
      while (sessions.size >= max) sessions.delete(sessions.keys().next().value!);
      const s: UiSession = { id: randomId(), csrf: randomId(), expiresAt: now() + ttlMs };
      sessions.set(s.id, s);
      return s;
    },
    get(id) {
      if (!id) return undefined;
      const s = sessions.get(id);
      if (!s) return undefined;
      if (s.expiresAt <= now()) {
        sessions.delete(id);
        return undefined;
      }
      return s;
    },
    delete: (id) => void sessions.delete(id),
    size: () => sessions.size,
  };
}
