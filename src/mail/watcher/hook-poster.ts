/**
 * Posts one batch to the hook URL with the hook token and the batch's Idempotency-Key,
 * retrying with capped exponential backoff while the gateway is down or answers
 * 408/425/429/5xx (Retry-After respected). Other answers end the attempt:
 * - 2xx → delivered (`replayed` when the gateway answered `Idempotent-Replayed: true`);
 * - 401/403/404/405 → MailError `hook_misconfigured` (wrong token or URL: retrying cannot help);
 * - 3xx → MailError `hook_misconfigured` too: redirects are not followed, as what the target
 *   answers (a login page's 200, or a 401 once the token is dropped) says nothing about the post;
 * - any other 4xx → rejected (the caller logs it and skips the batch).
 * With `maxWaitMs` (used by `mail run --once`), retrying stops once the next retry would
 * start later than that after the first attempt: MailError `hook_unreachable`.
 */
import type { ModuleLogger } from "../../core/logger";
import { backoffDelay, sleep, DEFAULT_POST_BACKOFF, type BackoffPolicy } from "./backoff";
import type { MailBatch } from "./batch";
import { mailErrors } from "../mail-error";
import { terminalSafeLine } from "../../host-contract/terminal-text";

/** Longest error code kept from a hook's answer (the gateway's codes are short identifiers). */
const MAX_CODE_CHARS = 100;
/** Longest redirect target quoted in the error of a hook URL that redirects. */
const MAX_LOCATION_CHARS = 200;
/**
 * Most bytes of a hook's answer the watcher reads: the gateway's `{ ok, code, error }` is far
 * smaller. Whatever answers at the hook URL may send gigabytes, or never end its body.
 */
export const MAX_ANSWER_BYTES = 64 * 1024;

export type PostOutcome =
  | { kind: "delivered"; status: number; attempts: number; replayed: boolean }
  | { kind: "rejected"; status: number; code?: string; attempts: number }
  | { kind: "aborted"; attempts: number };

export interface HookPosterOptions {
  hookUrl: string;
  /** The resolved hook token. Never logged. */
  token: string;
  logger: ModuleLogger;
  backoff?: BackoffPolicy;
  /** Upper bound of a server-requested Retry-After (default 5 minutes). */
  maxRetryAfterMs?: number;
  /** Bound of one HTTP attempt (default 30 s). */
  requestTimeoutMs?: number;
  fetch?: typeof fetch;
  random?: () => number;
  now?: () => number;
}

export interface PostLimits {
  /** Give up (MailError `hook_unreachable`) rather than start a retry later than this after the first attempt. Default: retry forever. */
  maxWaitMs?: number;
}

export interface HookPoster {
  post(batch: MailBatch, signal: AbortSignal, limits?: PostLimits): Promise<PostOutcome>;
}

const RETRYABLE = new Set([408, 425, 429]);
const MISCONFIGURED = new Set([401, 403, 404, 405]);

/** Parses Retry-After (delta seconds or HTTP date) into milliseconds from now. */
export function parseRetryAfter(value: string | null, nowMs: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number.parseInt(v, 10) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(at - nowMs, 0);
}

/**
 * The first `maxBytes` of an answer's body as text ("" when it cannot be read). A longer body
 * is not read further: the rest is discarded and the connection closed. The attempt's
 * timeout still bounds a body that trickles without end.
 */
async function readAnswerHead(res: Response, maxBytes: number): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Cut off (timeout, reset): what arrived so far is all there is.
  } finally {
    // A no-op once the body ended; otherwise stops the download.
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString("utf8");
}

export function createHookPoster(opts: HookPosterOptions): HookPoster {
  const policy = opts.backoff ?? DEFAULT_POST_BACKOFF;
  const doFetch = opts.fetch ?? fetch;
  const maxRetryAfter = opts.maxRetryAfterMs ?? 300_000;
  const timeoutMs = opts.requestTimeoutMs ?? 30_000;
  const now = opts.now ?? Date.now;
  const log = opts.logger;

  async function attempt(
    batch: MailBatch,
    body: string,
    signal: AbortSignal,
  ): Promise<{ status: number; retryAfter: string | null; replayed: boolean; code?: string; location: string | null } | { error: string }> {
    try {
      const res = await doFetch(opts.hookUrl, {
        method: "POST",
        headers: {
          authorization: `Bearer ${opts.token}`,
          "content-type": "application/json",
          "idempotency-key": batch.idempotencyKey,
        },
        body,
        redirect: "manual",
        signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      });
      let code: string | undefined;
      const text = await readAnswerHead(res, MAX_ANSWER_BYTES);
      try {
        const parsed = JSON.parse(text) as { code?: unknown };
        // Whatever answers at the hook URL chose this text: keep it one line and bounded, as it
        // goes into log lines and into the one-line error of `mail run`.
        if (typeof parsed.code === "string") code = terminalSafeLine(parsed.code.slice(0, MAX_CODE_CHARS));
      } catch {
        // Not JSON (e.g. a proxy's error page): the status alone decides.
      }
      const retryAfter = res.headers.get("retry-after");
      return { status: res.status, retryAfter, replayed: res.headers.get("idempotent-replayed") === "true", code, location: res.headers.get("location") };
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause;
      return { error: cause?.code ?? (e as Error).name ?? "error" };
    }
  }

  return {
    async post(batch, signal, limits = {}) {
      const body = JSON.stringify(batch.payload);
      const meta = { messages: batch.uids.length, uids: batch.uids, bytes: Buffer.byteLength(body), idempotencyKey: batch.idempotencyKey };
      const startedAt = now();
      /** Throws hook_unreachable when a retry after `delay` would start past limits.maxWaitMs. */
      const checkDeadline = (n: number, delay: number, last: string): void => {
        if (limits.maxWaitMs === undefined || now() - startedAt + delay <= limits.maxWaitMs) return;
        log.error("gave up on the mail batch for now; it is kept for the next run", { ...meta, attempts: n, last, maxWaitMs: limits.maxWaitMs });
        throw mailErrors.hookUnreachable({ hookUrl: opts.hookUrl, seconds: Math.round(limits.maxWaitMs / 1000), attempts: n, last });
      };
      for (let n = 1; ; n++) {
        if (signal.aborted) return { kind: "aborted", attempts: n - 1 };
        const r = await attempt(batch, body, signal);
        if (signal.aborted) return { kind: "aborted", attempts: n };
        let delay: number;
        if ("status" in r) {
          if (r.status >= 200 && r.status < 300) {
            // A replay means the gateway had already accepted this batch (e.g. before a crash): no second run.
            log.info(r.replayed ? "mail batch was already accepted by the gateway (replayed)" : "mail batch delivered", {
              ...meta,
              status: r.status,
              attempts: n,
            });
            return { kind: "delivered", status: r.status, attempts: n, replayed: r.replayed };
          }
          if (r.status >= 300 && r.status < 400) {
            // The server chose the Location: one bounded line in the error.
            const location = r.location === null ? "no Location" : terminalSafeLine(r.location.slice(0, MAX_LOCATION_CHARS));
            throw mailErrors.hookRedirects({ hookUrl: opts.hookUrl, status: r.status, location });
          }
          if (MISCONFIGURED.has(r.status)) {
            const args = { hookUrl: opts.hookUrl, status: r.status };
            if (r.status === 401 || r.status === 403) throw mailErrors.hookRefusedToken(args);
            throw r.code ? mailErrors.hookRefusesMailWithCode({ ...args, code: r.code }) : mailErrors.hookRefusesMail(args);
          }
          if (!(RETRYABLE.has(r.status) || r.status >= 500)) {
            log.error("mail batch rejected by the gateway; skipping it", { ...meta, status: r.status, code: r.code, attempts: n });
            return { kind: "rejected", status: r.status, code: r.code, attempts: n };
          }
          const backoff = backoffDelay(n, policy, opts.random);
          const asked = parseRetryAfter(r.retryAfter, now());
          delay = asked === undefined ? backoff : Math.min(asked, maxRetryAfter);
          checkDeadline(n, delay, `HTTP ${r.status}${r.code ? ` ${r.code}` : ""}`);
          log.warn("mail batch not accepted yet; retrying", { ...meta, status: r.status, code: r.code, attempt: n, retryInMs: delay });
        } else {
          delay = backoffDelay(n, policy, opts.random);
          checkDeadline(n, delay, r.error);
          log.warn("gateway unreachable; retrying mail batch", { ...meta, error: r.error, attempt: n, retryInMs: delay });
        }
        if (!(await sleep(delay, signal))) return { kind: "aborted", attempts: n };
      }
    },
  };
}
