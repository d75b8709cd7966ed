/**
 * One IMAP connection (imapflow) with the configured mailbox opened read-only
 * (EXAMINE: the watcher never changes flags), plus the few operations the watcher
 * needs. Connection and login failures become MailErrors with one clear sentence.
 */
import { ImapFlow, type ImapFlowError, type ImapFlowOptions } from "imapflow";
import type { MailConfig } from "../../config/types";
import type { ModuleLogger } from "../../core/logger";
import { MailError, mailErrors } from "../mail-error";
import { describePasswordRef } from "../password";
import { uidNextAfter } from "./highest-uid";

/** What the watcher knows about the opened mailbox. */
export interface MailboxState {
  /** Decimal string (UIDVALIDITY is a 32-bit unsigned integer). */
  uidValidity: string;
  /** UID the next arriving message will get. */
  uidNext: number;
}

export interface FetchedSource {
  uid: number;
  /** RFC822.SIZE of the whole message. */
  size?: number;
  internalDate?: Date;
  /** The message source, cut at the requested byte bound. */
  source: Buffer;
}

export type WaitResult = "exists" | "timeout" | "closed" | "aborted";

export interface ImapSession {
  readonly mailbox: MailboxState;
  /** True once the connection is gone. */
  readonly closed: boolean;
  /** Whether the server offers IDLE (otherwise the watcher only polls). */
  readonly idleSupported: boolean;
  /** UIDs greater than `afterUid`, ascending. */
  newUids(afterUid: number): Promise<number[]>;
  /** UIDs of messages whose internal date is on or after `date` (IMAP SEARCH SINCE, day granularity). */
  uidsSince(date: Date): Promise<number[]>;
  /** RFC822.SIZE of the given UIDs (removed ones are absent). */
  sourceSizes(uids: number[]): Promise<Map<number, number>>;
  /** Which of the given UIDs are still in the mailbox. */
  presentUids(uids: number[]): Promise<number[]>;
  /** Sources of the given UIDs, each cut at `maxSourceBytes`; absent: expunged ones, and any the server returned no content for. */
  fetchSources(uids: number[], maxSourceBytes: number): Promise<FetchedSource[]>;
  /** IDLEs until new mail is announced, `ms` pass, the connection closes or `signal` aborts. */
  waitForChange(ms: number, signal: AbortSignal): Promise<WaitResult>;
  /** Logs out (bounded) and closes. Never throws. */
  close(): Promise<void>;
}

export interface OpenImapSessionOptions {
  imap: MailConfig["imap"];
  password: string;
  logger: ModuleLogger;
  /** Bound of connecting + greeting (default 30 s). */
  connectTimeoutMs?: number;
}

/** imapflow options for a TLS mode: `tls` (implicit TLS), `starttls` (required upgrade), `none`. */
export function tlsOptions(mode: MailConfig["imap"]["tls"]): Pick<ImapFlowOptions, "secure" | "doSTARTTLS"> {
  if (mode === "tls") return { secure: true };
  if (mode === "starttls") return { secure: false, doSTARTTLS: true };
  return { secure: false, doSTARTTLS: false };
}

/** Turns an imapflow/socket error into a MailError naming the server and what to check. */
export function classifyImapError(e: unknown, imap: MailConfig["imap"]): MailError {
  if (e instanceof MailError) return e;
  const err = (e ?? {}) as ImapFlowError;
  const server = `${imap.host}:${imap.port}`;
  const said = err.responseText?.slice(0, 200);
  const cause = { cause: e };
  if (err.authenticationFailed && err.serverResponseCode !== "UNAVAILABLE") {
    const args = { server, user: imap.user, passwordRef: describePasswordRef(imap.password) };
    return said ? mailErrors.imapLoginRejectedSaying({ ...args, said }, cause) : mailErrors.imapLoginRejected(args, cause);
  }
  if (err.mailboxMissing) return mailErrors.imapMailboxMissing({ mailbox: imap.mailbox, user: imap.user, server }, cause);
  if (err.tlsFailed || /SSL|TLS|certificate/i.test(`${err.code ?? ""} ${err.message ?? ""}`)) {
    return mailErrors.imapTlsFailed({ server, reason: `${err.code ?? err.message}` }, cause);
  }
  const reason = err.code ?? err.message ?? "unknown error";
  return said ? mailErrors.imapUnusableSaying({ server, reason, said }, cause) : mailErrors.imapUnusable({ server, reason }, cause);
}

/** Connects, logs in and opens the mailbox read-only. Throws a MailError on failure. */
export async function openImapSession(opts: OpenImapSessionOptions): Promise<ImapSession> {
  const { imap, logger } = opts;
  const timeout = opts.connectTimeoutMs ?? 30_000;
  const client = new ImapFlow({
    host: imap.host,
    port: imap.port,
    ...tlsOptions(imap.tls),
    auth: { user: imap.user, pass: opts.password },
    logger: false,
    disableAutoIdle: true,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    clientInfo: { name: "inbound-webhooks mail watcher" },
  });
  let closed = false;
  const closeWaiters = new Set<() => void>();
  const existsWaiters = new Set<() => void>();
  // Set when the server announces mail; cleared when a search starts. Covers an EXISTS
  // that arrives piggybacked on a command's response, before the watcher waits.
  let changedSinceSearch = false;
  client.on("close", () => {
    closed = true;
    for (const w of closeWaiters) w();
  });
  client.on("error", (e: Error) => {
    logger.warn("IMAP connection error", { host: imap.host, port: imap.port, error: (e as ImapFlowError).code ?? e.name });
  });
  client.on("exists", (d) => {
    logger.debug("IMAP announced new message count", { count: d.count, prevCount: d.prevCount });
    changedSinceSearch = true;
    for (const w of existsWaiters) w();
  });

  let mailbox: MailboxState;
  try {
    await client.connect();
    const mb = await client.mailboxOpen(imap.mailbox, { readOnly: true });
    mailbox = { uidValidity: String(mb.uidValidity), uidNext: Number(mb.uidNext) };
    if (!Number.isInteger(mailbox.uidNext) || mailbox.uidNext < 1) {
      // A server that does not report UIDNEXT: derive it from the highest UID present.
      mailbox.uidNext = uidNextAfter((await client.search({ all: true }, { uid: true })) || []);
    }
  } catch (e) {
    client.close();
    throw classifyImapError(e, imap);
  }
  const idleSupported = client.capabilities.has("IDLE");
  logger.info("IMAP connected", {
    host: imap.host,
    port: imap.port,
    tls: imap.tls,
    secure: client.secureConnection,
    mailbox: imap.mailbox,
    uidValidity: mailbox.uidValidity,
    uidNext: mailbox.uidNext,
    idle: idleSupported,
  });

  const wrap = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (e) {
      throw classifyImapError(e, imap);
    }
  };

  return {
    mailbox,
    get closed() {
      return closed;
    },
    idleSupported,
    newUids: (afterUid) =>
      wrap(async () => {
        changedSinceSearch = false;
        const found = (await client.search({ uid: `${afterUid + 1}:*` }, { uid: true })) || [];
        // `N:*` always includes the highest UID, even when it is below N.
        return found.filter((u) => u > afterUid).sort((a, b) => a - b);
      }),
    uidsSince: (date) =>
      wrap(async () => {
        const found = (await client.search({ since: date }, { uid: true })) || [];
        return found.sort((a, b) => a - b);
      }),
    sourceSizes: (uids) =>
      wrap(async () => {
        const sizes = new Map<number, number>();
        if (uids.length === 0) return sizes;
        for await (const m of client.fetch(uids.join(","), { uid: true, size: true }, { uid: true })) {
          if (typeof m.size === "number") sizes.set(m.uid, m.size);
        }
        return sizes;
      }),
    presentUids: (uids) =>
      wrap(async () => {
        if (uids.length === 0) return [];
        const found = (await client.search({ uid: uids.join(",") }, { uid: true })) || [];
        return found.sort((a, b) => a - b);
      }),
    fetchSources: (uids, maxSourceBytes) =>
      wrap(async () => {
        if (uids.length === 0) return [];
        const out: FetchedSource[] = [];
        const query = { uid: true, size: true, internalDate: true, source: { maxLength: maxSourceBytes } };
        for await (const m of client.fetch(uids.join(","), query, { uid: true })) {
          if (!m.source) continue;
          const internalDate = m.internalDate === undefined ? undefined : new Date(m.internalDate);
          out.push({ uid: m.uid, size: m.size, internalDate, source: m.source });
        }
        return out.sort((a, b) => a.uid - b.uid);
      }),
    async waitForChange(ms, signal) {
      if (closed) return "closed";
      if (signal.aborted) return "aborted";
      if (changedSinceSearch) return "exists";
      return new Promise<WaitResult>((resolve) => {
        let settled = false;
        const finish = (r: WaitResult): void => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          closeWaiters.delete(onClose);
          existsWaiters.delete(onExists);
          signal.removeEventListener("abort", onAbort);
          resolve(r);
        };
        const onClose = (): void => finish("closed");
        const onExists = (): void => finish("exists");
        const onAbort = (): void => finish("aborted");
        const timer = setTimeout(() => finish("timeout"), ms);
        closeWaiters.add(onClose);
        existsWaiters.add(onExists);
        signal.addEventListener("abort", onAbort, { once: true });
        // IDLE runs until the next command breaks it; a failure just leaves us polling.
        if (idleSupported) {
          client.idle().catch((e: ImapFlowError) => logger.debug("IDLE ended with an error", { error: e.code ?? e.name }));
        }
      });
    },
    async close() {
      if (closed) return;
      let timer: NodeJS.Timeout | undefined;
      try {
        await Promise.race([client.logout(), new Promise((r) => (timer = setTimeout(r, 3000)))]);
      } catch {
        // Logging out of a broken connection fails; closing below is what matters.
      } finally {
        clearTimeout(timer);
        client.close();
      }
    },
  };
}
