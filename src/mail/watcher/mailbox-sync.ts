/**
 * One synchronisation pass over an open mailbox: settle the checkpoint (first start,
 * UIDVALIDITY change, `--since`), re-send a batch left pending by a stop or crash,
 * then fetch, parse, batch and post everything above the checkpoint, advancing it
 * after each answered batch. Used by the watcher on every wake-up.
 */
import type { MailConfig } from "../../config/types";
import type { ModuleLogger } from "../../core/logger";
import { splitIntoBatches, type MailBatch } from "./batch";
import type { Checkpoint, CheckpointStore, MailboxIdentity } from "./checkpoint-store";
import type { HookPoster, PostLimits } from "./hook-poster";
import type { ImapSession } from "./imap-session";
import { createMessageReader, SOURCE_FETCH_MAX_BYTES } from "./read-messages";
import { DEFAULT_FETCH_BUDGET_BYTES, takeWithinBudget } from "./fetch-budget";
import { highestUid } from "./highest-uid";

/** Where to start when `--since` is given: a UID (inclusive) or a date (internal date, day granularity). */
export type MailSince = { uid: number } | { date: Date };

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

export interface MailboxSyncOptions {
  mail: MailConfig;
  identity: MailboxIdentity;
  store: CheckpointStore;
  poster: HookPoster;
  logger: ModuleLogger;
  /** hooks.maxBodyBytes: batches are split to stay within it. */
  maxBodyBytes: number;
  /** Waits before fetching again a message the server returned without content (default DEFAULT_REFETCH_DELAYS_MS). */
  refetchDelaysMs?: readonly number[];
  /** Bytes of message sources fetched at once (default DEFAULT_FETCH_BUDGET_BYTES). */
  fetchBudgetBytes?: number;
}

/**
 * `since` is consumed (set to undefined) once applied, so a reconnect does not re-apply it.
 * `post` bounds the retries of each post (`--once`).
 */
export type SyncState = { since?: MailSince; post?: PostLimits };

/** Returns `sync(session, state, summary, signal)`: true when up to date, false when stopped. */
export function createMailboxSync(opts: MailboxSyncOptions) {
  const { mail, identity, store, poster, logger: log } = opts;
  const maxMessages = Math.max(mail.maxMessages, 1);
  const fetchBudget = opts.fetchBudgetBytes ?? DEFAULT_FETCH_BUDGET_BYTES;
  const readMessages = createMessageReader({ mail, identity, logger: log, refetchDelaysMs: opts.refetchDelaysMs });

  /** Posts one batch and advances the checkpoint; undefined when stopped before the gateway answered. */
  async function deliver(
    batch: MailBatch,
    cp: Checkpoint,
    nextLastUid: number,
    summary: MailRunSummary,
    signal: AbortSignal,
    limits?: PostLimits,
  ): Promise<Checkpoint | undefined> {
    store.save({ uidValidity: cp.uidValidity, lastUid: cp.lastUid, pending: batch });
    const outcome = await poster.post(batch, signal, limits);
    if (outcome.kind === "aborted") return undefined;
    if (outcome.kind === "delivered") {
      summary.delivered += batch.uids.length;
      summary.batches += 1;
    } else {
      summary.rejected += batch.uids.length;
    }
    return store.save({ uidValidity: cp.uidValidity, lastUid: Math.max(cp.lastUid, nextLastUid) });
  }

  /** The checkpoint for this session's mailbox: loaded, or (re)started at UIDNEXT-1. */
  function settleCheckpoint(session: ImapSession): Checkpoint {
    const mb = session.mailbox;
    const cp = store.load();
    if (cp && cp.uidValidity === mb.uidValidity) return cp;
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
    return store.save({ uidValidity: mb.uidValidity, lastUid: mb.uidNext - 1 });
  }

  async function applySince(session: ImapSession, since: MailSince, cp: Checkpoint): Promise<Checkpoint> {
    let lastUid: number;
    if ("uid" in since) {
      lastUid = since.uid - 1;
    } else {
      const uids = await session.uidsSince(since.date);
      lastUid = uids.length > 0 ? uids[0]! - 1 : session.mailbox.uidNext - 1;
    }
    log.info("checkpoint set from --since", { lastUid });
    return store.save({ uidValidity: cp.uidValidity, lastUid });
  }

  return async function sync(session: ImapSession, state: SyncState, summary: MailRunSummary, signal: AbortSignal): Promise<boolean> {
    let cp = settleCheckpoint(session);
    if (cp.pending) {
      log.info("re-sending the batch that was in flight when the watcher stopped", { uids: cp.pending.uids, idempotencyKey: cp.pending.idempotencyKey });
      const next = await deliver(cp.pending, cp, highestUid(cp.pending.uids) ?? cp.lastUid, summary, signal, state.post);
      if (!next) return false;
      cp = next;
    }
    if (state.since) {
      cp = await applySince(session, state.since, cp);
      state.since = undefined;
    }
    for (;;) {
      if (signal.aborted) return false;
      const uids = await session.newUids(cp.lastUid);
      if (uids.length === 0) break;
      let chunk = uids.slice(0, maxMessages);
      // Only when the chunk could exceed the budget: asking the sizes costs a round trip.
      if (chunk.length * SOURCE_FETCH_MAX_BYTES > fetchBudget) {
        chunk = takeWithinBudget(chunk, await session.sourceSizes(chunk), SOURCE_FETCH_MAX_BYTES, fetchBudget);
      }
      const chunkEnd = chunk[chunk.length - 1]!;
      const items = await readMessages(session, chunk, signal);
      if (!items) return false;
      const batches = splitIntoBatches(items, { maxMessages, maxBodyBytes: opts.maxBodyBytes });
      if (batches.length === 0) {
        // Everything in the chunk was removed before it could be read (each one logged).
        cp = store.save({ uidValidity: cp.uidValidity, lastUid: chunkEnd });
        continue;
      }
      for (let i = 0; i < batches.length; i++) {
        const batch = batches[i]!;
        const end = i === batches.length - 1 ? chunkEnd : batch.uids[batch.uids.length - 1]!;
        const next = await deliver(batch, cp, end, summary, signal, state.post);
        if (!next) return false;
        cp = next;
      }
    }
    summary.lastUid = cp.lastUid;
    summary.uidValidity = cp.uidValidity;
    return true;
  };
}
