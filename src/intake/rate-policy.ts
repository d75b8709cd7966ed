/**
 * Per-client request limits (`hooks.rateLimit`, with per-mapping overrides), the
 * last stage of admission (docs/architecture.md "Request lifecycle"): only requests
 * whose credential passed get here (on a verified path, once the signature over the
 * body is valid); refused credentials have their own throttle (auth-throttle.ts).
 *
 * - Client: the request's client key (IPv6 grouped by /56, src/intake/client-key.ts).
 * - Policy: a mapping with `rateLimit` whose `match.path` is the request's hook name
 *   (the one name, so `a//b` is `a/b`) gets its own counter and limit; every other
 *   request counts against `hooks.rateLimit`. A mapping matched only by `match.source`
 *   cannot have its own limit here (the body is not parsed yet); it uses the default.
 * - Fixed windows of `windowSeconds` per client and policy; memory is bounded by the
 *   clients seen in one window (expired counters are swept once per window).
 * - Over the limit: 429 `too_many_requests` with `Retry-After`; the IETF draft-8
 *   `RateLimit` / `RateLimit-Policy` headers go on every counted answer. The
 *   `request rate-limited` warning is logged once per client and window (the first
 *   429), not per refused request.
 * - `hooks.rateLimit.enabled: false` turns the default off; per-mapping limits stay.
 *
 * @example
 *   const policy = createRatePolicy(config);
 *   const verdict = policy?.check("github", "203.0.113.7"); // { ok: true, headers } | { ok: false, error }
 */
import { createHash } from "node:crypto";
import type { ResolvedHooksConfig } from "../config/types";
import { hookErrors, type HookError } from "../core/errors";
import type { ModuleLogger } from "../core/logger";

/** What was exceeded, passed to `onLimited`. */
export interface RateLimitedInfo {
  /** "hooks" (the default policy) or "mapping:<id>". */
  policy: string;
  limit: number;
  windowSeconds: number;
  retryAfterSeconds: number;
}

export type RateVerdict = { ok: true; headers: Record<string, string> } | { ok: false; error: HookError };

export interface RatePolicy {
  /** Counts one request of `client` on hook `hook` (undefined: no hook name) and says whether it may go on. */
  check(hook: string | undefined, client: string): RateVerdict;
}

export interface RatePolicyOptions {
  logger?: ModuleLogger;
  /** Called for each refused request (logging, events, metrics). */
  onLimited?: (info: RateLimitedInfo) => void;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
}

interface Counter {
  count: number;
  resetAt: number;
  /** The draft-8 partition key of the client (hashed once per window). */
  pk: string;
}

/** The draft-8 partition key: the first 12 hex digits of the key's SHA-256, base64 (as express-rate-limit sends it). */
function partitionKey(key: string): string {
  return Buffer.from(createHash("sha256").update(key).digest("hex").slice(0, 12)).toString("base64");
}

function createWindow(name: string, limit: number, windowSeconds: number, hookPath: string | undefined, opts: RatePolicyOptions, clock: () => number) {
  const windowMs = windowSeconds * 1000;
  const counters = new Map<string, Counter>();
  let nextSweep = 0;
  const sweep = (now: number): void => {
    if (now < nextSweep) return;
    nextSweep = now + windowMs;
    for (const [client, c] of counters) if (c.resetAt <= now) counters.delete(client);
  };
  return (client: string): RateVerdict => {
    const now = clock();
    sweep(now);
    let c = counters.get(client);
    if (!c || c.resetAt <= now) {
      c = { count: 0, resetAt: now + windowMs, pk: c?.pk ?? partitionKey(client) };
      counters.set(client, c);
    }
    c.count++;
    const resetSeconds = Math.max(0, Math.ceil((c.resetAt - now) / 1000));
    const headers: Record<string, string> = {
      RateLimit: `"${name}"; r=${Math.max(0, limit - c.count)}; t=${resetSeconds}`,
      "RateLimit-Policy": `"${name}"; q=${limit}; w=${windowSeconds}; pk=:${c.pk}:`,
    };
    if (c.count <= limit) return { ok: true, headers };
    const retryAfterSeconds = resetSeconds;
    const args = { limit, windowSeconds, retryAfterSeconds };
    const withHeaders = { headers: { ...headers, "Retry-After": String(retryAfterSeconds) } };
    const error = hookPath === undefined ? hookErrors.rateLimited(args, withHeaders) : hookErrors.rateLimitedOnPath({ ...args, hookPath }, withHeaders);
    // Once per client and window (the request's own line is folded too: refusal-log.ts); onLimited hears each.
    if (c.count === limit + 1) opts.logger?.warn("request rate-limited", { policy: name, limit, windowSeconds, retryAfterSeconds });
    opts.onLimited?.({ policy: name, limit, windowSeconds, retryAfterSeconds });
    return { ok: false, error };
  };
}

/** Undefined when nothing is limited. */
export function createRatePolicy(config: ResolvedHooksConfig, opts: RatePolicyOptions = {}): RatePolicy | undefined {
  const clock = opts.clock ?? Date.now;
  const byHook = new Map<string, (client: string) => RateVerdict>();
  for (const m of config.mappings) {
    const path = m.match?.path;
    if (!m.rateLimit || path === undefined || byHook.has(path)) continue;
    byHook.set(path, createWindow(`mapping:${m.id}`, m.rateLimit.max, m.rateLimit.windowSeconds, `${config.path}/${path}`, opts, clock));
  }
  const fallback = config.rateLimit.enabled ? createWindow("hooks", config.rateLimit.max, config.rateLimit.windowSeconds, undefined, opts, clock) : undefined;
  if (byHook.size === 0 && !fallback) return undefined;
  return {
    check(hook, client) {
      const window = (hook !== undefined ? byHook.get(hook) : undefined) ?? fallback;
      return window ? window(client) : { ok: true, headers: {} };
    },
  };
}
