/**
 * Schema of the plugin database, as an ordered list of migrations. The number of
 * applied migrations is kept in SQLite's `user_version`; `migrate()` applies the
 * missing ones in one transaction and refuses a database written by a newer version.
 *
 * Never edit a released migration: append a new one.
 */
import type { SqliteDatabase } from "./sqlite-types";

/**
 * The `deliveries` table. `seq` orders rows (newest first is `seq DESC`); times are
 * ms since the epoch; `headers` is a JSON object of redacted headers; `body` the raw
 * bytes (NULL when not stored); `response` the JSON answer. Also used to recreate the
 * table when it is found missing at start (src/store/ledger-table.ts).
 */
export const LEDGER_SCHEMA = `
  CREATE TABLE IF NOT EXISTS deliveries (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE,
    received_at     INTEGER NOT NULL,
    method          TEXT NOT NULL,
    url             TEXT NOT NULL,
    hook            TEXT,
    mapping_id      TEXT,
    client          TEXT NOT NULL,
    status          INTEGER NOT NULL,
    code            TEXT,
    latency_ms      INTEGER NOT NULL,
    idempotency_key TEXT,
    run_id          TEXT,
    run_ids         TEXT NOT NULL DEFAULT '[]',
    replay_of       TEXT,
    headers         TEXT,
    body            BLOB,
    body_stored     INTEGER NOT NULL DEFAULT 0,
    response        TEXT
  );
  CREATE INDEX IF NOT EXISTS deliveries_received_at ON deliveries (received_at);
  CREATE INDEX IF NOT EXISTS deliveries_hook_seq ON deliveries (hook, seq);
  CREATE INDEX IF NOT EXISTS deliveries_run_id ON deliveries (run_id) WHERE run_id IS NOT NULL;
`;

/** How much of a body the search index reads (characters); the rest of a larger body is not searchable. */
export const SEARCH_BODY_CHARS = 65_536;

/**
 * Migration 4, the ledger's events and search (SPEC §6.1 `event`, §13): the event a
 * mapping named, whether the answer was an idempotent repeat or waited for its run
 * (`Prefer: wait`), the answer's headers, and `deliveries_fts` — a contentless FTS5
 * index (it stores no text, only the index) over hook, event, status and the first
 * SEARCH_BODY_CHARS of the body, kept by triggers in the same transaction as the row
 * (a crash or a full disk loses both or neither; migration 6 replaced the triggers). Also run after LEDGER_SCHEMA when
 * the table is created again (ledger-table.ts), which is why the index is emptied.
 */
export const LEDGER_EVENTS_SCHEMA = `
  ALTER TABLE deliveries ADD COLUMN event TEXT;
  ALTER TABLE deliveries ADD COLUMN repeat INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE deliveries ADD COLUMN waited INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE deliveries ADD COLUMN response_headers TEXT;
  CREATE VIRTUAL TABLE IF NOT EXISTS deliveries_fts USING fts5(hook, event, status, body, content='', contentless_delete=1);
  DELETE FROM deliveries_fts;
  INSERT INTO deliveries_fts (rowid, hook, event, status, body)
    SELECT seq, hook, event, status, CASE WHEN body_stored = 1 THEN substr(CAST(body AS TEXT), 1, ${SEARCH_BODY_CHARS}) END FROM deliveries;
  CREATE TRIGGER IF NOT EXISTS deliveries_fts_insert AFTER INSERT ON deliveries BEGIN
    INSERT INTO deliveries_fts (rowid, hook, event, status, body)
      VALUES (new.seq, new.hook, new.event, new.status, CASE WHEN new.body_stored = 1 THEN substr(CAST(new.body AS TEXT), 1, ${SEARCH_BODY_CHARS}) END);
  END;
  CREATE TRIGGER IF NOT EXISTS deliveries_fts_delete AFTER DELETE ON deliveries BEGIN
    DELETE FROM deliveries_fts WHERE rowid = old.seq;
  END;
`;

/**
 * Migration 5, refused requests in a bounded share (SPEC §11, §7 "Bounded disk"):
 * `refused` marks a request answered before it authenticated (401, 429, a bad
 * signature …) — kept without its body, in a share of `maxEntries` of its own, so a
 * flood with no credentials never evicts an authenticated delivery; `times` is how many
 * requests the row stands for (a throttled client's repeated 429s are one counted row)
 * and `last_at` (ms) the last of them. Rows already stored with those statuses become
 * refused rows and lose their bodies (the index forgets them with it). Also run after
 * LEDGER_EVENTS_SCHEMA when the table is created again (ledger-table.ts).
 */
export const LEDGER_REFUSED_SCHEMA = `
  ALTER TABLE deliveries ADD COLUMN refused INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE deliveries ADD COLUMN times INTEGER NOT NULL DEFAULT 1;
  ALTER TABLE deliveries ADD COLUMN last_at INTEGER;
  CREATE INDEX IF NOT EXISTS deliveries_refused_seq ON deliveries (refused, seq);
  DELETE FROM deliveries_fts WHERE rowid IN (SELECT seq FROM deliveries WHERE status IN (401, 429) AND body_stored = 1);
  INSERT INTO deliveries_fts (rowid, hook, event, status, body)
    SELECT seq, hook, event, status, NULL FROM deliveries WHERE status IN (401, 429) AND body_stored = 1;
  UPDATE deliveries SET refused = 1, body = NULL, body_stored = 0 WHERE status IN (401, 429);
`;

/**
 * Migration 6, the search index written by the ledger itself (ledger-store.ts on
 * insert, ledger-prune.ts on delete), in the same transaction as its rows, instead of
 * by triggers. FTS5 writes its pending terms out at every statement savepoint, and a
 * trigger opens one per row: each row became an index segment of its own, to be merged
 * later (24 µs per ledger row with the triggers, 14 µs without; measured in
 * docs/performance.md). A crash or a full disk still loses a row and its index entry
 * together or neither. Also run after LEDGER_REFUSED_SCHEMA when the table is created
 * again (ledger-table.ts), which re-creates the triggers of migration 4. (Since issue 36
 * the ledger writes a row's index entry after the turn that committed the row, in steps of
 * its own: ledger-index.ts.)
 */
export const LEDGER_INDEX_SCHEMA = `
  DROP TRIGGER IF EXISTS deliveries_fts_insert;
  DROP TRIGGER IF EXISTS deliveries_fts_delete;
`;

/** What the index holds of a row's body: its first SEARCH_BODY_CHARS characters when stored, else NULL. */
const INDEXED_BODY = `CASE WHEN body_stored = 1 THEN substr(CAST(body AS TEXT), 1, ${SEARCH_BODY_CHARS}) END`;

/**
 * Indexes the rows with `seq` above the first parameter and up to the second (a step of
 * ledger-index.ts, after the accept turn), from the rows themselves: the values read back are
 * the ones searchIndexDelete gives FTS5 when they go (a number bound from JavaScript would be a
 * REAL, "200.0", where the row holds the INTEGER 200).
 */
export const SEARCH_INDEX_INSERT = `INSERT INTO deliveries_fts (rowid, hook, event, status, body) SELECT seq, hook, event, status, ${INDEXED_BODY} FROM deliveries WHERE seq > ? AND seq <= ?`;

/**
 * Takes the rows `select` (a query of `seq`s) finds out of the index, before they are
 * deleted: FTS5's 'delete' command with the values the row was indexed with (its hook,
 * event and status never change after the INSERT, nor its body). Only rows up to the last
 * parameter (the index's watermark, ledger-index.ts) are in the index: a row above it was
 * never indexed, and a 'delete' of it would corrupt the contentless index (migration 7).
 */
export function searchIndexDelete(select: string): string {
  return `INSERT INTO deliveries_fts (deliveries_fts, rowid, hook, event, status, body) SELECT 'delete', seq, hook, event, status, ${INDEXED_BODY} FROM deliveries WHERE seq IN (${select}) AND seq <= ?`;
}

/**
 * Migration 7, the search index without `contentless_delete`: taking a row out of such
 * an index cost more than twice indexing it (13 µs per row indexed and later deleted,
 * against 5.6 µs with FTS5's 'delete' command given the row's values, measured in
 * docs/performance.md), and the ledger deletes a row for every row it adds once it is
 * full. The index is built again from the rows (also when the table is created again,
 * ledger-table.ts, which also runs it alone to build a missing or unusable index again).
 */
export const LEDGER_INDEX_DELETE_SCHEMA = `
  DROP TABLE IF EXISTS deliveries_fts;
  CREATE VIRTUAL TABLE deliveries_fts USING fts5(hook, event, status, body, content='');
  INSERT INTO deliveries_fts (rowid, hook, event, status, body) SELECT seq, hook, event, status, ${INDEXED_BODY} FROM deliveries;
`;

/**
 * Migration 10, the search index of row ids only (`detail=none`): no positions, so
 * matching a term walks at most one entry per row, whatever a body holds. With positions
 * (`detail=full`, migration 7), a search's cost was set by the bodies: a quoted word that
 * the tokenizer split into 100 tokens was a phrase, matched position by position on every
 * row holding them (4.3 s for 400 bodies of `a a a…`), and a term walked every position of
 * every row it occurs in (up to 32,768 per 64 KiB body). The search matches whole terms,
 * no phrase, no prefix (ledger-search.ts). The index is built again from the rows (also when
 * the table is created again, and by ledger-table.ts alone for a missing or unusable index).
 */
export const LEDGER_INDEX_IDS_SCHEMA = `
  DROP TABLE IF EXISTS deliveries_fts;
  CREATE VIRTUAL TABLE deliveries_fts USING fts5(hook, event, status, body, content='', detail=none);
  INSERT INTO deliveries_fts (rowid, hook, event, status, body) SELECT seq, hook, event, status, ${INDEXED_BODY} FROM deliveries;
`;

/**
 * Migration 8, the starts of each run (`attempts`), written in the same statement that
 * marks it running, so a crash right after the mark still counts: recovery stops
 * re-queuing a run interrupted `MAX_RUN_ATTEMPTS` times (src/runs/recovery.ts). A run
 * already started before the upgrade counts as started once. Like every migration it
 * runs in the transaction that sets `user_version`: a crash or a full disk in the middle
 * leaves the database at schema 7, migrated again at the next start.
 */
export const RUN_ATTEMPTS_SCHEMA = `
  ALTER TABLE runs ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
  UPDATE runs SET attempts = 1 WHERE started_at IS NOT NULL;
`;

/**
 * Migration 9, the main-session outbox (SPEC §7 "In every host", session-event-store.ts):
 * each event the plugin puts on a session (a wake, a run's summary) is kept here from
 * before its 2xx until the host says it took it into a turn (then the row is deleted),
 * and what is still here is handed to the host again at the next start — a host that
 * keeps its events in memory (OpenClaw) loses none at a stop. `dedupe_key` is the
 * event's identity with the host (`SystemEventMeta.dedupeKey`): one row per key and
 * session. `meta` is the JSON `SystemEventMeta` handed with it; `created_at` ms.
 */
export const SESSION_EVENTS_SCHEMA = `
  CREATE TABLE session_events (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    session_key TEXT NOT NULL,
    dedupe_key  TEXT NOT NULL,
    text        TEXT NOT NULL,
    meta        TEXT NOT NULL,
    created_at  INTEGER NOT NULL
  );
  CREATE UNIQUE INDEX session_events_key ON session_events (session_key, dedupe_key);
`;

/**
 * Migration 11, the columns a run listing shows (run-list.ts): the action's `name` and
 * `sessionKey`, written with the run (run-store.ts) beside the action's JSON, so that a
 * listing reads ids, names, times and the summary without parsing any action: 500 runs of
 * 250 KB parsed in full held the event loop 1.1 s for `GET {path}/runs?limit=500`. Filled for
 * the runs already stored from their action (left NULL where it is not valid JSON or has no
 * such text field: a damaged run, which a listing reads in full, and skips, as before).
 */
export const RUN_LISTING_SCHEMA = `
  ALTER TABLE runs ADD COLUMN name TEXT;
  ALTER TABLE runs ADD COLUMN session_key TEXT;
  UPDATE runs SET
    name = CASE WHEN json_type(action, '$.name') = 'text' THEN json_extract(action, '$.name') END,
    session_key = CASE WHEN json_type(action, '$.sessionKey') = 'text' THEN json_extract(action, '$.sessionKey') END
  WHERE json_valid(action);
`;

/** The migrations (versions, from 1) that concern no ledger table (runs, idempotency, session events): the ledger's repairs (ledger-table.ts) skip them. */
export const RUNS_ONLY_VERSIONS: ReadonlySet<number> = new Set([1, 2, 8, 9, 11]);

export const MIGRATIONS: readonly string[] = [
  // 1: durable runs and idempotency records.
  `
  CREATE TABLE runs (
    id              TEXT PRIMARY KEY,
    seq             INTEGER NOT NULL UNIQUE,
    status          TEXT NOT NULL CHECK (status IN ('queued','running','succeeded','failed','timed_out','interrupted')),
    action          TEXT NOT NULL,  -- JSON AgentAction
    source          TEXT NOT NULL,  -- JSON ActionSource
    created_at      TEXT NOT NULL,
    started_at      TEXT,
    finished_at     TEXT,
    summary         TEXT,
    error           TEXT,
    idempotency_key TEXT
  );
  CREATE INDEX runs_status_seq ON runs (status, seq);
  CREATE INDEX runs_idempotency_key ON runs (idempotency_key) WHERE idempotency_key IS NOT NULL;
  CREATE INDEX runs_finished_at ON runs (finished_at) WHERE finished_at IS NOT NULL;

  CREATE TABLE idempotency_keys (
    scope      TEXT NOT NULL,
    key        TEXT NOT NULL,
    body_hash  TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('pending','complete')),
    status     INTEGER,
    body       TEXT,            -- JSON, NULL for an empty (204) body
    headers    TEXT,            -- JSON object of stored response headers
    created_at INTEGER NOT NULL, -- ms since epoch
    expires_at INTEGER NOT NULL, -- ms since epoch
    PRIMARY KEY (scope, key)
  ) WITHOUT ROWID;
  CREATE INDEX idempotency_keys_expires_at ON idempotency_keys (expires_at);
  `,
  // 2: outbox flag — the outcome is recorded, its summary not yet confirmed on the main session.
  `
  ALTER TABLE runs ADD COLUMN summary_pending INTEGER NOT NULL DEFAULT 0;
  `,
  // 3: the delivery ledger (SPEC §11): one row per request that reached a hook route.
  LEDGER_SCHEMA,
  // 4: the event, repeat and waited flags, the answer's headers, and the search index.
  LEDGER_EVENTS_SCHEMA,
  // 5: refused-before-authentication rows: a flag, a count of repeats, the last time.
  LEDGER_REFUSED_SCHEMA,
  // 6: the search index kept by the ledger's own statements, not by triggers.
  LEDGER_INDEX_SCHEMA,
  // 7: the search index emptied by FTS5's 'delete' command, not contentless_delete.
  LEDGER_INDEX_DELETE_SCHEMA,
  // 8: the number of starts of each run (attempts), bounding retryInterrupted.
  RUN_ATTEMPTS_SCHEMA,
  // 9: the main-session outbox: events kept until the host took them into a turn.
  SESSION_EVENTS_SCHEMA,
  // 10: the search index of row ids only (detail=none): a search's cost no longer set by the bodies.
  LEDGER_INDEX_IDS_SCHEMA,
  // 11: the run's name and session key in columns of their own, for listings.
  RUN_LISTING_SCHEMA,
];

/** Applies pending migrations; returns the resulting schema version. */
export function migrate(db: SqliteDatabase, migrations: readonly string[] = MIGRATIONS): number {
  const current = db.pragmaValue("user_version") as number;
  if (current > migrations.length) {
    throw new Error(
      `the plugin database has schema version ${current} but this version of the plugin knows only ${migrations.length}; upgrade the plugin or move the database aside`,
    );
  }
  if (current === migrations.length) return current;
  db.transaction(() => {
    for (let v = current; v < migrations.length; v++) db.exec(migrations[v]!);
    db.pragma(`user_version = ${migrations.length}`);
  }, "immediate")();
  return migrations.length;
}
