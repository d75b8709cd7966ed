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
import type { MailConfig } from "../config/types";
import type { ModuleLogger } from "../logging/logger";
import { backoffDelay, sleep, DEFAULT_RECONNECT_BACKOFF, type BackoffPolicy } from "./backoff";
import { splitIntoBatches, type MailBatch, type UidMessage } from "./batch";
import { createCheckpointStore, type Checkpoint, type CheckpointStore, type MailboxIdentity } from "./checkpoint-store";
import { createHookPoster, type HookPoster } from "./hook-poster";
import { openImapSession, type ImapSession, type OpenImapSessionOptions } from "./imap-session";
import { isMailError, MailError } from "./mail-error";
import { parseMessage } from "./parse-message";
import { resolvePassword } from "./password";
import { acquireWatcherLock } from "./watcher-lock";

/** Where to start when `--since` is given: a UID (inclusive) or a date (internal date, day granularity). */
export type MailSince = { uid: number } | { date: Date };

/** Messages larger than this are parsed from their first bytes only. */
export const SOURCE_FETCH_MAX_BYTES = 2 * 1024 * 1024;

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
  fetch?: typeof fetch;
  random?: () => number;
  env?: NodeJS.ProcessEnv;
  /** Replaces the real IMAP connection (tests of failure paths). */
  openSession?: (opts: OpenImapSessionOptions) => Promise<ImapSession>;
  poster?: HookPoster;
}

export interface MailRunSummary {
  /** Messages the gateway accepted (2xx). */
  delivered: number;
  /** Messages in batches the gateway rejected permanently (skipped). */
  rejected: number;
  /** Posts answered with 2xx. */
  batches: number;
  lastUid: number;
  uidValidity: string;
}

export interface MailWatcher {
  /** Processes what is new once, then disconnects. */
  runOnce(signal?: AbortSignal): Promise<MailRunSummary>;
  /** Watches until `signal` aborts; rejects only on a fatal error (login refused, mailbox missing, hook misconfigured, lock held). */
  run(signal: AbortSignal): Promise<MailRunSummary>;
}

/** Errors after which retrying cannot help. */
const FATAL = ["imap_auth_failed", "imap_mailbox_missing", "hook_misconfigured", "password_unavailable", "watcher_locked"] as const;
function isFatal(e: unknown): boolean {
  return FATAL.some((c) => isMailError(e, c));
}

export function createMailWatcher(opts: MailWatcherOptions): MailWatcher {
  const { mail, logger: log } = opts;
  const identity: MailboxIdentity = { host: mail.imap.host, port: mail.imap.port, user: mail.imap.user, mailbox: mail.imap.mailbox };
  const store = createCheckpointStore({ stateDir: opts.stateDir, mailbox: identity });
  const poster =
    opts.poster ??
    createHookPoster({ hookUrl: opts.hookUrl, token: opts.token, logger: log, backoff: opts.postBackoff, fetch: opts.fetch, random: opts.random });
  const open = opts.openSession ?? openImapSession;
  const reconnectPolicy = opts.reconnectBackoff ?? DEFAULT_RECONNECT_BACKOFF;

  async function connect(): Promise<ImapSession> {
    const password = resolvePassword(mail.imap.password, { baseDir: opts.configDir, env: opts.env });
    return open({ imap: mail.imap, password, logger: log });
  }

  function newSummary(): MailRunSummary {
    return { delivered: 0, rejected: 0, batches: 0, lastUid: 0, uidValidity: "" };
  }

  /** Posts one batch and advances the checkpoint; undefined when stopped before the gateway answered. */
  async function deliver(batch: MailBatch, cp: Checkpoint, nextLastUid: number, summary: MailRunSummary, signal: AbortSignal): Promise<Checkpoint | undefined> {
    store.save({ uidValidity: cp.uidValidity, lastUid: cp.lastUid, pending: batch });
    const outcome = await poster.post(batch, signal);
    if (outcome.kind === "aborted") return undefined;
    if (outcome.kind === "delivered") {
      summary.delivered += batch.uids.length;
      summary.batches += 1;
    } else {
      summary.rejected += batch.uids.length;
    }
    return store.save({ uidValidity: cp.uidValidity, lastUid: Math.max(cp.lastUid, nextLastUid) });
  }

  /** Brings the checkpoint up to date with the mailbox. Returns false when stopped. */
  async function sync(session: ImapSession, state: { since?: MailSince }, summary: MailRunSummary, signal: AbortSignal): Promise<boolean> {
    const mb = session.mailbox;
    let cp = store.load();
    if (!cp || cp.uidValidity !== mb.uidValidity) {
      if (cp) {
        log.warn("mailbox UIDVALIDITY changed; checkpoint restarts at the current end of the mailbox", {
          mailbox: identity.mailbox,
          previousUidValidity: cp.uidValidity,
          uidValidity: mb.uidValidity,
          previousLastUid: cp.lastUid,
          droppedPendingMessages: cp.pending?.uids.length ?? 0,
        });
      } else {
        log.info("first start for this mailbox: only mail arriving from now on is sent", { mailbox: identity.mailbox, uidNext: mb.uidNext });
      }
      cp = store.save({ uidValidity: mb.uidValidity, lastUid: mb.uidNext - 1 });
    }
    if (cp.pending) {
      log.info("re-sending the batch that was in flight when the watcher stopped", { uids: cp.pending.uids, idempotencyKey: cp.pending.idempotencyKey });
      const next = await deliver(cp.pending, cp, Math.max(...cp.pending.uids), summary, signal);
      if (!next) return false;
      cp = next;
    }
    if (state.since) {
      const since = state.since;
      let lastUid: number;
      if ("uid" in since) {
        lastUid = since.uid - 1;
      } else {
        const uids = await session.uidsSince(since.date);
        lastUid = uids.length > 0 ? uids[0]! - 1 : mb.uidNext - 1;
      }
      cp = store.save({ uidValidity: cp.uidValidity, lastUid });
      log.info("checkpoint set from --since", { lastUid });
      state.since = undefined;
    }
    for (;;) {
      if (signal.aborted) return false;
      const uids = await session.newUids(cp.lastUid);
      if (uids.length === 0) break;
      const chunk = uids.slice(0, Math.max(mail.maxMessages, 1));
      const sources = await session.fetchSources(chunk, SOURCE_FETCH_MAX_BYTES);
      const items: UidMessage[] = [];
      for (const s of sources) {
        const fallbackId = `${mb.uidValidity}.${s.uid}@${identity.host}`;
        try {
          const message = await parseMessage(s.source, {
            maxBytes: mail.maxBytes,
            includeBody: mail.includeBody,
            fallbackId,
            internalDate: s.internalDate,
          });
          items.push({ uid: s.uid, message });
        } catch (e) {
          log.warn("message could not be parsed; sending its envelope only", { uid: s.uid, size: s.size, error: (e as Error).name });
          items.push({ uid: s.uid, message: { id: fallbackId, from: "(unknown sender)", subject: "(message could not be parsed)", snippet: "" } });
        }
      }
      log.info("new mail", { uids: chunk, fetched: sources.length, bytes: sources.reduce((n, s) => n + (s.size ?? s.source.length), 0) });
      const batches = splitIntoBatches(items, { maxMessages: Math.max(mail.maxMessages, 1), maxBodyBytes: opts.maxBodyBytes });
      const chunkEnd = chunk[chunk.length - 1]!;
      if (batches.length === 0) {
        // Everything in the chunk was expunged before it could be fetched.
        cp = store.save({ uidValidity: cp.uidValidity, lastUid: chunkEnd });
        continue;
      }
      for (let i = 0; i < batches.length; i++) {
        const batch = batches[i]!;
        const end = i === batches.length - 1 ? chunkEnd : batch.uids[batch.uids.length - 1]!;
        const next = await deliver(batch, cp, end, summary, signal);
        if (!next) return false;
        cp = next;
      }
    }
    summary.lastUid = cp.lastUid;
    summary.uidValidity = cp.uidValidity;
    return true;
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
          await sync(session, { since: opts.since }, summary, signal);
        } finally {
          await session.close();
        }
        return finalSummary(summary);
      });
    },

    run(signal) {
      return withLock(async () => {
        const summary = newSummary();
        const state: { since?: MailSince } = { since: opts.since };
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
