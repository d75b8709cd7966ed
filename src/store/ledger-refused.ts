/**
 * Rows of requests refused before authentication (SPEC §11, §7 "Bounded disk"): a 401,
 * a 429 of the auth throttle, a bad signature — anyone can send them, so each costs the
 * ledger a small, bounded row:
 *   - no body, ever (whatever `storeBodies` says);
 *   - the headers kept only up to REFUSED_HEADERS_BYTES (each value cut to
 *     REFUSED_VALUE_CHARS), the URL and the hook name (a part of it) each up to
 *     REFUSED_URL_CHARS;
 *   - a throttled client's repeated 429s are one row counting them (`times`, `last_at`),
 *     as long as they keep coming (a pause longer than FOLD_WINDOW_MS starts a new row).
 * Their number is bounded by ledger-prune.ts (a share of `maxEntries`).
 *
 * @example
 *   const folder = createRefusalFolder(db, 1000);
 *   if (!folder.fold(entry)) folder.opened(entry, insertRow(refusedEntry(entry)));
 */
import type { LedgerEntry } from "./ledger-rows";
import type { SqliteDatabase } from "./sqlite-types";

export const REFUSED_HEADERS_BYTES = 2048;
export const REFUSED_VALUE_CHARS = 256;
export const REFUSED_URL_CHARS = 1024;
/** Repeated 429s of one client closer together than this share one counted row. */
export const FOLD_WINDOW_MS = 10 * 60_000;

const cutTo = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max)}…` : text);

/** The row actually kept for a refused request: no body, bounded headers, URL and hook name. */
export function refusedEntry(e: LedgerEntry): LedgerEntry {
  const headers: Record<string, string> = {};
  let bytes = 2;
  for (const [name, value] of Object.entries(e.headers)) {
    const kept = cutTo(value, REFUSED_VALUE_CHARS);
    const size = Buffer.byteLength(name) + Buffer.byteLength(kept) + 6;
    if (bytes + size > REFUSED_HEADERS_BYTES) {
      headers["…"] = `${Object.keys(e.headers).length - Object.keys(headers).length} more header(s) not kept (refused before authentication)`;
      break;
    }
    headers[name] = kept;
    bytes += size;
  }
  const { body: _body, ...rest } = e;
  return { ...rest, url: cutTo(e.url, REFUSED_URL_CHARS), ...(e.hook !== undefined ? { hook: cutTo(e.hook, REFUSED_URL_CHARS) } : {}), headers, refused: true };
}

export interface RefusalFolder {
  /** Counts a 429 in its client's open row; false when there is none (insert a row, then call `opened`). */
  fold(e: LedgerEntry): boolean;
  /** Notes the row just inserted for a refused 429. */
  opened(e: LedgerEntry, seq: number): void;
}

/**
 * The open rows of throttled clients, at most `limit` of them (the oldest forgotten first:
 * its next 429 starts a new row). A noted row that a rolled-back write or pruning removed
 * is simply not found (the UPDATE names its seq and client), and a new row is started.
 */
export function createRefusalFolder(db: SqliteDatabase, limit: number): RefusalFolder {
  const bump = db.prepare<[number, number, string]>(
    "UPDATE deliveries SET times = times + 1, last_at = ? WHERE seq = ? AND client = ? AND status = 429 AND refused = 1",
  );
  const open = new Map<string, { seq: number; lastAt: number }>();
  const folds = (e: LedgerEntry): boolean => e.refused === true && e.status === 429;
  return {
    fold(e) {
      if (!folds(e)) return false;
      const row = open.get(e.client);
      if (!row || e.receivedAt - row.lastAt > FOLD_WINDOW_MS) return false;
      if (bump.run(e.receivedAt, row.seq, e.client).changes === 0) {
        open.delete(e.client);
        return false;
      }
      row.lastAt = e.receivedAt;
      return true;
    },
    opened(e, seq) {
      if (!folds(e)) return;
      open.delete(e.client);
      open.set(e.client, { seq, lastAt: e.receivedAt });
      if (open.size > limit) open.delete(open.keys().next().value!);
    },
  };
}
