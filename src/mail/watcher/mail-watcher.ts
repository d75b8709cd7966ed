/**
 * The mail watcher: connects to the IMAP mailbox, sends every message newer than the
 * persisted checkpoint to the hook in batches, and (unless `once`) waits for more
 * with IDLE plus polling, reconnecting with backoff when the connection drops.
 *
 * Guarantees (see docs/mail.md):
 * - the checkpoint advances only after the gateway answered a batch with 2xx (or
 *   rejected it permanently with a 4xx other than 401/403/404/405/408/425/429);
 * - the batch in flight is persisted first, so a restart re-sends the same body with
 *   the same Idempotency-Key (the gateway answers a replay, no second agent run);
 * - first start (no checkpoint): only mail arriving from now on, unless `since`;
 * - UIDVALIDITY change: old UIDs mean nothing any more; the checkpoint restarts at the
 *   new UIDNEXT-1 (like a first start) and a warning is logged.
 */
import type { MailConfig } from "../../config/types";
import type { ModuleLogger } from "../../core/logger";
import { backoffDelay, sleep, DEFAULT_RECONNECT_BACKOFF, type BackoffPolicy } from "./backoff";
import { createCheckpointStore, type MailboxIdentity } from "./checkpoint-store";
import { createHookPoster, type HookPoster } from "./hook-poster";
import { openImapSession, type ImapSession, type OpenImapSessionOptions } from "./imap-session";
import { createMailboxSync, type MailRunSummary, type MailSince, type SyncState } from "./mailbox-sync";
import { isMailError, MailError } from "../mail-error";
import { resolvePassword } from "../password";
import { acquireWatcherLock } from "./watcher-lock";

export { type MailRunSummary, type MailSince } from "./mailbox-sync";
export { SOURCE_FETCH_MAX_BYTES } from "./read-messages";

export interface MailWatcherOptions {
  mail: MailConfig;
  /** The resolved hook token. Never logged. */
  token: string;
  hookUrl: string;
  /** Plugin state dir; the checkpoint and lock live in `<stateDir>/mail/`. */
  stateDir: string;
  logger: ModuleLogger;
  /** hooks.maxBodyBytes: batches are split to stay within it. */
  maxBodyBytes: number;
  /** Directory a relative password file resolves against (the config file's directory). */
  configDir?: string;
  since?: MailSince;
  reconnectBackoff?: BackoffPolicy;
  postBackoff?: BackoffPolicy;
  /** Waits before fetching again a message the server returned without content (default 1 s, 5 s, 15 s). */
  refetchDelaysMs?: readonly number[];
  /** Bytes of message sources fetched at once (default 32 MiB). */
  fetchBudgetBytes?: number;
  fetch?: typeof fetch;
  random?: () => number;
  /** Clock of the post retries (milliseconds; default Date.now). */
  now?: () => number;
  /**
   * `runOnce` only: how long one batch may be retried while the gateway is down or busy
   * before runOnce rejects with MailError `hook_unreachable` (the batch stays pending for
   * the next run). Default 60 000 ms; `run` retries forever.
   */
  onceMaxWaitMs?: number;
  env?: NodeJS.ProcessEnv;
  /** Replaces the real IMAP connection (tests of failure paths). */
  openSession?: (opts: OpenImapSessionOptions) => Promise<ImapSession>;
  poster?: HookPoster;
}

export interface MailWatcher {
  /** Processes what is new once, then disconnects; rejects with `hook_unreachable` when the gateway stays down past `onceMaxWaitMs`. */
  runOnce(signal?: AbortSignal): Promise<MailRunSummary>;
  /** Watches until `signal` aborts; rejects only on a fatal error (login refused, mailbox missing, hook misconfigured, lock held). */
  run(signal: AbortSignal): Promise<MailRunSummary>;
}

/** Default bound of one batch's post retries in `runOnce` (`mail run --once --max-wait`). */
export const DEFAULT_ONCE_MAX_WAIT_MS = 60_000;

/** Errors after which retrying cannot help. */
const FATAL = ["imap_auth_failed", "imap_mailbox_missing", "hook_misconfigured", "password_unavailable", "watcher_locked", "checkpoint_unreadable"] as const;
function isFatal(e: unknown): boolean {
  return FATAL.some((c) => isMailError(e, c));
}

export function createMailWatcher(opts: MailWatcherOptions): MailWatcher {
  const { mail, logger: log } = opts;
  const identity: MailboxIdentity = { host: mail.imap.host, port: mail.imap.port, user: mail.imap.user, mailbox: mail.imap.mailbox };
  const store = createCheckpointStore({ stateDir: opts.stateDir, mailbox: identity });
  const poster =
    opts.poster ??
    createHookPoster({
      hookUrl: opts.hookUrl,
      token: opts.token,
      logger: log,
      backoff: opts.postBackoff,
      fetch: opts.fetch,
      random: opts.random,
      now: opts.now,
    });
  const open = opts.openSession ?? openImapSession;
  const reconnectPolicy = opts.reconnectBackoff ?? DEFAULT_RECONNECT_BACKOFF;
  const sync = createMailboxSync({
    mail,
    identity,
    store,
    poster,
    logger: log,
    maxBodyBytes: opts.maxBodyBytes,
    refetchDelaysMs: opts.refetchDelaysMs,
    fetchBudgetBytes: opts.fetchBudgetBytes,
  });

  async function connect(): Promise<ImapSession> {
    const password = resolvePassword(mail.imap.password, { baseDir: opts.configDir, env: opts.env });
    return open({ imap: mail.imap, password, logger: log });
  }

  function newSummary(): MailRunSummary {
    return { delivered: 0, rejected: 0, batches: 0, lastUid: 0, uidValidity: "" };
  }

  async function withLock<T>(fn: () => Promise<T>): Promise<T> {
    const lock = acquireWatcherLock(opts.stateDir, identity);
    try {
      return await fn();
    } finally {
      lock.release();
    }
  }

  function finalSummary(summary: MailRunSummary): MailRunSummary {
    const cp = store.load();
    if (cp) {
      summary.lastUid = cp.lastUid;
      summary.uidValidity = cp.uidValidity;
    }
    return summary;
  }

  return {
    runOnce(signal = new AbortController().signal) {
      return withLock(async () => {
        const summary = newSummary();
        const session = await connect();
        try {
          await sync(session, { since: opts.since, post: { maxWaitMs: opts.onceMaxWaitMs ?? DEFAULT_ONCE_MAX_WAIT_MS } }, summary, signal);
        } finally {
          await session.close();
        }
        return finalSummary(summary);
      });
    },

    run(signal) {
      return withLock(async () => {
        const summary = newSummary();
        const state: SyncState = { since: opts.since };
        const pollMs = Math.max(mail.pollSeconds, 1) * 1000;
        let failures = 0;
        while (!signal.aborted) {
          let session: ImapSession | undefined;
          try {
            session = await connect();
            failures = 0;
            for (;;) {
              if (!(await sync(session, state, summary, signal))) break;
              const r = await session.waitForChange(pollMs, signal);
              if (r === "aborted") break;
              if (r === "closed") {
                log.warn("IMAP connection closed; reconnecting", { host: identity.host, port: identity.port });
                break;
              }
            }
          } catch (e) {
            if (isFatal(e)) throw e;
            const mailErr = e instanceof MailError ? e : undefined;
            log.warn("mail watcher interrupted; reconnecting", { code: mailErr?.code ?? "error", error: mailErr?.message ?? (e as Error).name });
          } finally {
            await session?.close();
          }
          if (signal.aborted) break;
          failures += 1;
          const delay = backoffDelay(failures, reconnectPolicy, opts.random);
          log.info("reconnecting to IMAP", { attempt: failures, retryInMs: delay });
          await sleep(delay, signal);
        }
        return finalSummary(summary);
      });
    },
  };
}
