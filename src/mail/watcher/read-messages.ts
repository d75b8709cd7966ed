/**
 * Reads one chunk of new UIDs into parsed messages. A UID the server returned no content
 * for is never dropped silently:
 * - removed from the mailbox meanwhile (expunged, moved by another client): not sent, with a
 *   warning naming the mailbox and the UID;
 * - still there: fetched again after each of `refetchDelaysMs` (a server's passing hiccup),
 *   then, if it still has no content, sent as a placeholder entry naming its UID, with a warning
 *   (one unreadable message must not hold back later mail, nor vanish without a trace).
 * A message mailparser cannot read is sent as an envelope placeholder too.
 * Log lines carry mailboxes, UIDs, counts and sizes — never subjects, senders or text.
 */
import type { MailConfig } from "../../config/types";
import type { ModuleLogger } from "../../core/logger";
import { sleep } from "./backoff";
import type { UidMessage } from "./batch";
import type { FetchedSource, ImapSession } from "./imap-session";
import { parseMessage } from "./parse-message";

/** Messages larger than this are parsed from their first bytes only. */
export const SOURCE_FETCH_MAX_BYTES = 2 * 1024 * 1024;
/** Waits before fetching a message again that came back without content (then it is sent as a placeholder). */
export const DEFAULT_REFETCH_DELAYS_MS: readonly number[] = [1_000, 5_000, 15_000];

export interface ReadMessagesOptions {
  mail: MailConfig;
  /** Host and mailbox, for fallback ids and log lines. */
  identity: { host: string; mailbox: string };
  logger: ModuleLogger;
  refetchDelaysMs?: readonly number[];
}

/** Returns `read(session, chunk, signal)`: the chunk's messages in UID order, or undefined when stopped meanwhile. */
export function createMessageReader(opts: ReadMessagesOptions) {
  const { mail, identity, logger: log } = opts;
  const delays = opts.refetchDelaysMs ?? DEFAULT_REFETCH_DELAYS_MS;
  const where = { mailbox: identity.mailbox };

  /** The UIDs of `missing` still in the mailbox; the others are reported as removed. */
  async function stillPresent(session: ImapSession, missing: number[]): Promise<number[]> {
    const present = new Set(await session.presentUids(missing));
    const gone = missing.filter((u) => !present.has(u));
    for (const uid of gone) log.warn("message removed from the mailbox before it could be read; not sent", { ...where, uid });
    return missing.filter((u) => present.has(u));
  }

  /** Sources of the chunk, fetching again those the server returned without content. */
  async function fetchAll(session: ImapSession, chunk: number[], signal: AbortSignal): Promise<{ sources: FetchedSource[]; unreadable: number[] } | undefined> {
    const byUid = new Map<number, FetchedSource>();
    const add = (list: FetchedSource[]): void => list.forEach((s) => byUid.set(s.uid, s));
    add(await session.fetchSources(chunk, SOURCE_FETCH_MAX_BYTES));
    let missing = chunk.filter((u) => !byUid.has(u));
    for (let attempt = 0; missing.length > 0; attempt++) {
      missing = await stillPresent(session, missing);
      if (missing.length === 0 || attempt === delays.length) break;
      for (const uid of missing)
        log.warn("the server returned no content for a message; fetching it again", { ...where, uid, attempt: attempt + 1, retryInMs: delays[attempt] });
      if (!(await sleep(delays[attempt]!, signal))) return undefined;
      add(await session.fetchSources(missing, SOURCE_FETCH_MAX_BYTES));
      missing = missing.filter((u) => !byUid.has(u));
    }
    return { sources: [...byUid.values()].sort((a, b) => a.uid - b.uid), unreadable: missing };
  }

  return async function read(session: ImapSession, chunk: number[], signal: AbortSignal): Promise<UidMessage[] | undefined> {
    const fetched = await fetchAll(session, chunk, signal);
    if (!fetched) return undefined;
    const { sources, unreadable } = fetched;
    log.info("new mail", { uids: chunk, fetched: sources.length, bytes: sources.reduce((n, s) => n + (s.size ?? s.source.length), 0) });
    const fallbackId = (uid: number): string => `${session.mailbox.uidValidity}.${uid}@${identity.host}`;
    const items: UidMessage[] = [];
    for (const s of sources) {
      try {
        const message = await parseMessage(s.source, {
          maxBytes: mail.maxBytes,
          includeBody: mail.includeBody,
          fallbackId: fallbackId(s.uid),
          internalDate: s.internalDate,
        });
        items.push({ uid: s.uid, message });
      } catch (e) {
        log.warn("message could not be parsed; sending its envelope only", { ...where, uid: s.uid, size: s.size, error: (e as Error).name });
        items.push({ uid: s.uid, message: { id: fallbackId(s.uid), from: "(unknown sender)", subject: "(message could not be parsed)", snippet: "" } });
      }
    }
    for (const uid of unreadable) {
      log.warn("the server returned no content for a message after every retry; sending a placeholder for it", { ...where, uid, attempts: delays.length + 1 });
      items.push({
        uid,
        message: { id: fallbackId(uid), from: "(unknown sender)", subject: `(message could not be read from the server; UID ${uid})`, snippet: "" },
      });
    }
    return items.sort((a, b) => a.uid - b.uid);
  };
}
