/**
 * The log of refused requests, bounded as the ledger bounds their rows (SPEC §11,
 * ledger-refused.ts): anyone can send a request that is refused (no token, a bad
 * signature, a throttled client), so one line each would let one client write the
 * log without bound (5,000 requests without a token wrote 5,000 lines, 1.66 MB).
 *
 * Per client and code, the first refusal of a window is logged at once, with its
 * request id, hook, URL and sizes; the repeats until the window ends are only
 * counted, and one line then says how many there were (`repeats`). At most
 * MAX_FOLDED_CLIENTS clients are followed per window: a refusal of a client beyond
 * them is counted with the others' in one line per window (`repeats`, and `clients`,
 * which stops counting at 10,000).
 * So a window holds at most MAX_FOLDED_CLIENTS × (codes) + 1 lines whatever the flood.
 * A request its client aborted before the answer (a partial body, then the connection
 * closed: anyone can send one, to a signed path without a token) is folded the same way,
 * at info, as the code `client_aborted` (before: one info line each, bounded only by the
 * rate limit).
 * The metrics and events still count every request, and the ledger records each.
 * The counts are written when the window ends (an unref'd timer): a process that
 * stops first leaves its last window's counts to the ledger.
 *
 * @example
 *   const refusals = createRefusalLog({ logger, clock: Date.now });
 *   refusals.refused({ requestId, client, hook, status: 401, code: "unauthorized", … });
 */
import type { ModuleLogger } from "../core/logger";

/** Refusals of one client and code closer together than this share one line and a counted one. */
export const REFUSAL_LOG_WINDOW_MS = 60_000;
/** How many clients a window follows one by one. */
export const MAX_FOLDED_CLIENTS = 1000;
/** How many of the other clients a window tells apart for their line's `clients` (a count that stops there). */
const MAX_OTHER_CLIENTS = 10_000;

/** The fields of a refusal's line; `client`, `status` and `code` key the folding. */
export interface RefusalLine {
  client: string;
  status: number;
  code: string;
  hook?: string;
  [field: string]: unknown;
}

/** An aborted request's line: a refusal's fields but the code (always CLIENT_ABORTED). */
export interface AbortedLine {
  client: string;
  status: number;
  hook?: string;
  [field: string]: unknown;
}

export interface RefusalLog {
  /** Logs the refusal, or counts it when its client and code were logged in this window. */
  refused(line: RefusalLine): void;
  /** The same for a request its client aborted before the answer (`code` client_aborted, at info). */
  aborted(line: AbortedLine): void;
}

/** The code an aborted request's line is folded by. */
export const CLIENT_ABORTED = "client_aborted";

export interface RefusalLogOptions {
  logger: ModuleLogger;
  /** ms since the epoch. */
  clock: () => number;
  /** Default REFUSAL_LOG_WINDOW_MS. */
  windowMs?: number;
  /** Default MAX_FOLDED_CLIENTS. */
  maxClients?: number;
}

interface Open {
  line: RefusalLine;
  aborted: boolean;
  firstAt: number;
  lastAt: number;
  repeats: number;
}

export function createRefusalLog(options: RefusalLogOptions): RefusalLog {
  const { logger, clock } = options;
  const windowMs = options.windowMs ?? REFUSAL_LOG_WINDOW_MS;
  const maxClients = options.maxClients ?? MAX_FOLDED_CLIENTS;
  const open = new Map<string, Open>();
  const clients = new Set<string>();
  /** Refusals of clients beyond maxClients in this window (and how many such clients). */
  let others = { repeats: 0, clients: new Set<string>(), firstAt: 0 };
  let windowEnd = 0;
  let timer: NodeJS.Timeout | undefined;

  const write = (status: number, aborted: boolean, message: string, meta: Record<string, unknown>): void => {
    if (aborted) logger.info(message, meta);
    else if (status >= 500) logger.error(message, meta);
    else logger.warn(message, meta);
  };
  const said = (aborted: boolean): string => (aborted ? "hook request aborted by the client" : "hook request rejected");

  const repeatsOf = (o: Open): void => {
    if (o.repeats === 0) return;
    const { client, status, code, hook } = o.line;
    write(status, o.aborted, `${said(o.aborted)} again: repeats of the line before, counted`, {
      client,
      status,
      code,
      hook,
      repeats: o.repeats,
      firstAt: new Date(o.firstAt).toISOString(),
      lastAt: new Date(o.lastAt).toISOString(),
    });
  };

  /** Ends the window: each count in one line, every client forgotten. */
  function closeWindow(): void {
    for (const o of open.values()) repeatsOf(o);
    if (others.repeats > 0) {
      logger.warn("hook requests rejected (or aborted) from more clients than the log follows one by one, counted", {
        clients: others.clients.size,
        repeats: others.repeats,
        firstAt: new Date(others.firstAt).toISOString(),
        lastAt: new Date(clock()).toISOString(),
      });
    }
    open.clear();
    clients.clear();
    others = { repeats: 0, clients: new Set(), firstAt: 0 };
    if (timer) clearTimeout(timer);
    timer = undefined;
  }

  function fold(line: RefusalLine, aborted: boolean): void {
    const now = clock();
    if (now >= windowEnd) {
      closeWindow();
      windowEnd = now + windowMs;
    }
    const key = `${line.client}\u0000${line.status}\u0000${line.code}`;
    const o = open.get(key);
    if (o) {
      o.repeats++;
      o.lastAt = now;
    } else if (clients.has(line.client) || clients.size < maxClients) {
      clients.add(line.client);
      open.set(key, { line, aborted, firstAt: now, lastAt: now, repeats: 0 });
      write(line.status, aborted, said(aborted), line);
    } else {
      if (others.repeats === 0) others.firstAt = now;
      others.repeats++;
      if (others.clients.size < MAX_OTHER_CLIENTS) others.clients.add(line.client);
    }
    // The counts are written when the window ends, also when no refusal follows.
    timer ??= setTimeout(closeWindow, Math.max(0, windowEnd - now)).unref();
  }

  return {
    refused: (line) => fold(line, false),
    aborted: (line) => fold({ ...line, code: CLIENT_ABORTED }, true),
  };
}
