/**
 * The durable main-session outbox (table `session_events`, migration 9): events the
 * plugin puts on a session, kept from before their 2xx until the host took them into a
 * turn (src/runs/session-outbox.ts).
 *
 * The write is one INSERT (`insertSessionEvent`), SQL only, so it can run inside any
 * write of the turn's group commit (write-batch.ts): `stage()` puts it in the batch on
 * its own; a caller that writes the ledger row, the run and the idempotency record of a
 * request in one `batch.stage(() => …)` calls `insertSessionEvent` inside that write, and
 * the event is stored in the same transaction, or nothing of it is. A key already kept
 * for the session is not written twice (the INSERT does nothing).
 *
 * Disk full or I/O error: the INSERT's transaction fails and the staged promise rejects
 * with it (nothing stored: the request answers 503 `storage_unavailable`); a failed
 * delete of consumed events leaves them kept, to be handed again at the next start (the
 * host drops what it already has by its dedupe key). A row whose `meta` is not valid JSON
 * is handed with its key alone, and named in a warning.
 */
import type { PluginDatabase } from "./database";
import type { SqliteDatabase, SqliteStatement } from "./sqlite-types";
import type { ModuleLogger } from "../core/logger";
import type { SessionEvent, SessionEventStore, StoredSessionEvent } from "../core/session-events";

interface Row {
  seq: number;
  session_key: string;
  dedupe_key: string;
  text: string;
  meta: string;
  created_at: number;
}

/** The prepared INSERT of one event; true when it was written (false: the key is already kept for the session). */
export type SessionEventInsert = (event: SessionEvent) => boolean;

/** The event INSERT over `db`, for use inside a write of the turn's batch (see the file comment). */
export function sessionEventInsert(db: SqliteDatabase): SessionEventInsert {
  const insert: SqliteStatement<[string, string, string, string, number], unknown> = db.prepare(
    "INSERT INTO session_events (session_key, dedupe_key, text, meta, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (session_key, dedupe_key) DO NOTHING",
  );
  return (e) => insert.run(e.sessionKey, e.dedupeKey, e.text, JSON.stringify(e.meta), e.createdAt).changes === 1;
}

export function createSqliteSessionEventStore(database: PluginDatabase, logger?: ModuleLogger): SessionEventStore {
  const { db } = database;
  const insert = sessionEventInsert(db);
  const all = db.prepare<[number], Row>("SELECT * FROM session_events ORDER BY seq LIMIT ?");
  const ofSession = db.prepare<[string, number], Row>("SELECT * FROM session_events WHERE session_key = ? ORDER BY seq LIMIT ?");
  const del = db.prepare<[string, string], unknown>("DELETE FROM session_events WHERE session_key = ? AND dedupe_key = ?");
  const count = db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM session_events WHERE session_key = ?");

  const toEvent = (row: Row): StoredSessionEvent => {
    let meta: StoredSessionEvent["meta"];
    try {
      meta = { ...(JSON.parse(row.meta) as object), dedupeKey: row.dedupe_key };
    } catch {
      logger?.warn("a kept main-session event has damaged metadata; it is handed with its key alone", { database: database.file, seq: row.seq });
      meta = { dedupeKey: row.dedupe_key };
    }
    return { seq: row.seq, sessionKey: row.session_key, dedupeKey: row.dedupe_key, text: row.text, meta, createdAt: row.created_at };
  };

  return {
    stage: (event) => database.batch.stage(() => insert(event)),
    pending({ sessionKey, limit = Number.MAX_SAFE_INTEGER } = {}) {
      const rows = sessionKey === undefined ? all.all(limit) : ofSession.all(sessionKey, limit);
      return rows.map(toEvent);
    },
    consumed(sessionKey, dedupeKeys) {
      const keys = [...dedupeKeys];
      return database.batch.stage(() => keys.reduce((n, key) => n + del.run(sessionKey, key).changes, 0));
    },
    count: (sessionKey) => count.get(sessionKey)?.n ?? 0,
  };
}
