/**
 * What a dashboard form POST produced (a replay's answer, a dry run's verdict),
 * kept briefly so the POST can answer 303 and the page shown after the redirect
 * (a GET, safe to reload) can show it: POST → redirect → GET. Reloading the page
 * shows the result again and never repeats the action.
 *
 * Results are kept in memory under a random id, for the principal that made them
 * only (a cookie session's id, or `bearer`), for `ttlMs`, at most `max` at once
 * (the oldest goes first) and at most `maxChars` of text in all — a dry run can
 * carry a pasted payload of up to 1 MiB, so the store is bounded in size too.
 *
 * @example
 *   const id = results.put(owner, { kind: "replay", … });   // in the POST
 *   res.redirect(303, `/ui/deliveries/${id}?result=${id}`);
 *   results.get(owner, req.query.result);                  // in the GET
 */
import crypto from "node:crypto";

export const DEFAULT_RESULT_TTL_MS = 15 * 60_000;
export const DEFAULT_MAX_RESULTS = 50;
export const DEFAULT_MAX_RESULT_CHARS = 8 * 1024 * 1024;

export interface FormResults<T> {
  /** Keeps `value` for `owner`; returns its id (for the redirect's query string). */
  put(owner: string, value: T): string;
  /** The value kept under `id` for `owner`; undefined when unknown, expired or another owner's. */
  get(owner: string, id: unknown): T | undefined;
}

interface Kept<T> {
  owner: string;
  value: T;
  chars: number;
  expiresAt: number;
}

export function createFormResults<T>(opts: { now: () => number; ttlMs?: number; max?: number; maxChars?: number; size: (value: T) => number }): FormResults<T> {
  const ttlMs = opts.ttlMs ?? DEFAULT_RESULT_TTL_MS;
  const max = opts.max ?? DEFAULT_MAX_RESULTS;
  const maxChars = opts.maxChars ?? DEFAULT_MAX_RESULT_CHARS;
  const kept = new Map<string, Kept<T>>();
  let chars = 0;
  const drop = (id: string) => {
    const k = kept.get(id);
    if (!k) return;
    chars -= k.chars;
    kept.delete(id);
  };
  return {
    put(owner, value) {
      const t = opts.now();
      for (const [id, k] of kept) if (k.expiresAt <= t) drop(id);
      const size = opts.size(value);
      while (kept.size > 0 && (kept.size >= max || chars + size > maxChars)) drop(kept.keys().next().value!);
      const id = crypto.randomBytes(16).toString("base64url");
      kept.set(id, { owner, value, chars: size, expiresAt: t + ttlMs });
      chars += size;
      return id;
    },
    get(owner, id) {
      if (typeof id !== "string") return undefined;
      const k = kept.get(id);
      if (!k || k.owner !== owner) return undefined;
      if (k.expiresAt <= opts.now()) {
        drop(id);
        return undefined;
      }
      return k.value;
    },
  };
}
