/**
 * SQL access to idempotency records (table `idempotency_keys`), and the crash
 * recovery of records a dead process left `pending`.
 *
 * A record is written `pending` (with the request's body hash) before the hook is
 * handled and becomes `complete` (status, body, headers) when a storable response
 * was produced; otherwise it is deleted. A run accepted under a key carries
 * `runIdempotencyKey(scope, key)` in its row, so a `pending` record whose request
 * died after the run was persisted can be completed with that run's 202. The runs
 * of a fan-out carry `<that key>#<index>` and are stored in one transaction (all
 * or none), so a fan-out's pending record is completed with the 202 listing them.
 * A key used again after it expired starts afresh: inserting its new pending record
 * detaches the runs of its earlier use (their `idempotency_key` is cleared), so a
 * failed or crashed new attempt is never completed with an old run's answer.
 */
import type { SqliteDatabase } from "./sqlite-types";
import { acceptedRunBody, type HookResponse } from "../core/ports";

export interface IdempotencyRecord {
  scope: string;
  key: string;
  bodyHash: string;
  state: "pending" | "complete";
  /** Present when complete. */
  response?: HookResponse;
  /** ms since epoch */
  createdAt: number;
  /** ms since epoch */
  expiresAt: number;
}

/**
 * The string stored in `RunRecord.idempotencyKey` for a run accepted under
 * (scope, key). Pass it to `RunQueue.accept(…, { idempotencyKey })`.
 *
 * @example runIdempotencyKey("agent", "evt-1") // '["agent","evt-1"]'
 */
export function runIdempotencyKey(scope: string, key: string): string {
  return JSON.stringify([scope, key]);
}

interface Row {
  scope: string;
  key: string;
  body_hash: string;
  state: "pending" | "complete";
  status: number | null;
  body: string | null;
  headers: string | null;
  created_at: number;
  expires_at: number;
}

function toIdempotencyRecord(row: Row): IdempotencyRecord {
  const record: IdempotencyRecord = {
    scope: row.scope,
    key: row.key,
    bodyHash: row.body_hash,
    state: row.state,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
  if (row.state === "complete" && row.status !== null) {
    const response: HookResponse = { status: row.status };
    if (row.body !== null) response.body = JSON.parse(row.body);
    if (row.headers !== null) response.headers = JSON.parse(row.headers) as Record<string, string>;
    record.response = response;
  }
  return record;
}

export interface IdempotencyStore {
  get(scope: string, key: string): IdempotencyRecord | undefined;
  /** Inserts a pending record (detaching runs left from an expired use of the key); false when one already exists for (scope, key). */
  insertPending(pending: { scope: string; key: string; bodyHash: string; createdAt: number; expiresAt: number }): boolean;
  /** Stores the response of a pending record and marks it complete. */
  complete(scope: string, key: string, response: HookResponse): void;
  remove(scope: string, key: string): void;
  /** Completes a pending record from its run (or a fan-out's runs), or deletes it. Returns the record after resolution. */
  resolvePending(scope: string, key: string): IdempotencyRecord | undefined;
  /** Deletes records that expired at `now`; returns how many. */
  purgeExpired(now: number): number;
}

interface RunRow {
  id: string;
  action: string;
  source: string;
}

interface KeyedRunRow extends RunRow {
  idempotency_key: string;
}

const sessionKeyOf = (run: RunRow): string => (JSON.parse(run.action) as { sessionKey: string }).sessionKey;
const mappingIdOf = (run: RunRow): string | undefined => (JSON.parse(run.source) as { mappingId?: string }).mappingId;

/**
 * The 202 a fan-out answers (see src/intake/responses/fan-out-dispatch.ts), rebuilt from
 * its runs `<prefix><index>`. `events` is 0: wake events are not stored, so those a
 * dead request posted cannot be counted.
 */
function fanOutAcceptedResponse(prefix: string, rows: readonly KeyedRunRow[]): HookResponse | undefined {
  const runs = rows
    .map((r) => ({ index: r.idempotency_key.slice(prefix.length), row: r }))
    .filter((r) => /^\d{1,6}$/.test(r.index))
    .map((r) => ({ index: Number(r.index), runId: r.row.id, sessionKey: sessionKeyOf(r.row), mappingId: mappingIdOf(r.row) }))
    .sort((a, b) => a.index - b.index);
  if (runs.length === 0) return undefined;
  const body: Record<string, unknown> = { ok: true, runs: runs.map(({ index, runId, sessionKey }) => ({ index, runId, sessionKey })), events: 0 };
  if (runs[0].mappingId !== undefined) body.mapping = runs[0].mappingId;
  return { status: 202, body };
}

/** Prepared statements over one connection. */
export function createIdempotencyStore(db: SqliteDatabase): IdempotencyStore {
  const selectOne = db.prepare<[string, string], Row>("SELECT * FROM idempotency_keys WHERE scope = ? AND key = ?");
  const insert = db.prepare(
    `INSERT INTO idempotency_keys (scope, key, body_hash, state, created_at, expires_at)
     VALUES (@scope, @key, @bodyHash, 'pending', @createdAt, @expiresAt)
     ON CONFLICT (scope, key) DO NOTHING`,
  );
  const completeStmt = db.prepare(
    `UPDATE idempotency_keys SET state = 'complete', status = @status, body = @body, headers = @headers
     WHERE scope = @scope AND key = @key`,
  );
  const del = db.prepare("DELETE FROM idempotency_keys WHERE scope = ? AND key = ?");
  const detachRuns = db.prepare("UPDATE runs SET idempotency_key = NULL WHERE idempotency_key = ? OR (idempotency_key >= ? AND idempotency_key < ?)");
  const purge = db.prepare("DELETE FROM idempotency_keys WHERE expires_at <= ?");
  const runByKey = db.prepare<[string], RunRow>("SELECT id, action, source FROM runs WHERE idempotency_key = ? ORDER BY seq LIMIT 1");
  // `<key>#<index>` sorts between `<key>#` and `<key>$` ('$' follows '#'): a range on the index, no LIKE escaping.
  const fanOutRuns = db.prepare<[string, string], KeyedRunRow>(
    "SELECT id, action, source, idempotency_key FROM runs WHERE idempotency_key >= ? AND idempotency_key < ? ORDER BY seq",
  );

  const store: IdempotencyStore = {
    get(scope, key) {
      const row = selectOne.get(scope, key);
      return row ? toIdempotencyRecord(row) : undefined;
    },
    insertPending(pending) {
      if (insert.run(pending).changes !== 1) return false;
      // Runs carrying the key now are from a use that expired: they are not this request's.
      const runKey = runIdempotencyKey(pending.scope, pending.key);
      detachRuns.run(runKey, `${runKey}#`, `${runKey}$`);
      return true;
    },
    complete(scope, key, response) {
      completeStmt.run({
        scope,
        key,
        status: response.status,
        body: response.body === undefined ? null : JSON.stringify(response.body),
        headers: response.headers && Object.keys(response.headers).length > 0 ? JSON.stringify(response.headers) : null,
      });
    },
    remove(scope, key) {
      del.run(scope, key);
    },
    resolvePending(scope, key) {
      return db.transaction(() => {
        const row = selectOne.get(scope, key);
        if (!row || row.state !== "pending") return row ? toIdempotencyRecord(row) : undefined;
        const runKey = runIdempotencyKey(scope, key);
        const run = runByKey.get(runKey);
        const response = run
          ? { status: 202, body: acceptedRunBody({ id: run.id, sessionKey: sessionKeyOf(run), mappingId: mappingIdOf(run) }) }
          : fanOutAcceptedResponse(`${runKey}#`, fanOutRuns.all(`${runKey}#`, `${runKey}$`));
        if (!response) {
          del.run(scope, key);
          return undefined;
        }
        store.complete(scope, key, response);
        return toIdempotencyRecord(selectOne.get(scope, key)!);
      }, "immediate")();
    },
    purgeExpired(now) {
      return purge.run(now).changes;
    },
  };
  return store;
}

/**
 * Resolves every pending record a crash left (run at open): completed from its run (or its
 * fan-out's runs) when persisted, else deleted. A record whose request another open
 * connection of this process still handles (`inFlight`: a plugin instance a host reloads
 * beside this one, keys-in-flight.ts) is not a crash's leftover and is kept.
 */
export function recoverPendingIdempotency(db: SqliteDatabase, inFlight: (id: string) => boolean = () => false): { completed: number; dropped: number } {
  const store = createIdempotencyStore(db);
  const pending = db.prepare<[], { scope: string; key: string }>("SELECT scope, key FROM idempotency_keys WHERE state = 'pending'").all();
  let completed = 0;
  let dropped = 0;
  for (const p of pending) {
    if (inFlight(runIdempotencyKey(p.scope, p.key))) continue;
    if (store.resolvePending(p.scope, p.key)) completed++;
    else dropped++;
  }
  return { completed, dropped };
}

/** Deletes expired idempotency records; returns how many. */
export function purgeExpiredIdempotency(db: SqliteDatabase, now: number): number {
  return createIdempotencyStore(db).purgeExpired(now);
}
