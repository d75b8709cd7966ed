/**
 * The one statement of the Postgres store's group commit (pg-accept.ts) and its
 * parameters: the records of the requests of one batch as five JSON arrays (keys, runs,
 * wakes, ledger rows, counted 429s), each row carrying the index of its request
 * (`item`), read by `json_to_recordset`. The statement inserts the idempotency records
 * first; the requests whose key is held (`lost`) store nothing else; it answers the
 * requests that lost, the `seq` of each run and ledger row written, the rows counted,
 * and sends the NOTIFY of what arrived.
 *
 * @example await pool.query(ACCEPT_SQL, acceptParameters(writes, true));
 */
import type { AgentAction, ActionSource } from "../../core/actions";
import type { HookResponse } from "../../core/ports";
import type { LedgerEntry } from "../ledger-rows";
import { refusedEntry } from "../ledger-refused";
import { PG_CHANNEL, PG_SCHEMA as S } from "./pg-schema";
import { pgText } from "./pg-text";

export interface PgRunInsert {
  id: string;
  action: AgentAction;
  source: ActionSource;
  /** ISO-8601 UTC */
  createdAt: string;
  idempotencyKey?: string;
}

/** A wake a receiver stored for the consumer's main session. */
export interface PgWakeInsert {
  id: string;
  /** What the consumer hands its host (JSON-serialisable). */
  event: Record<string, unknown>;
  /** ms since the epoch */
  createdAt: number;
}

export interface PgIdempotencyInsert {
  scope: string;
  key: string;
  bodyHash: string;
  /** The answer a repeat gets. */
  response: HookResponse;
  /** ms since the epoch */
  createdAt: number;
  expiresAt: number;
}

/** What one request stores. */
export interface PgAcceptWrite {
  idempotency?: PgIdempotencyInsert;
  runs?: readonly PgRunInsert[];
  wakes?: readonly PgWakeInsert[];
  delivery?: LedgerEntry;
  /** A throttled client's repeated 429: counted in its open row (`times`) instead of a row of its own. */
  fold?: { seq: number; client: string; at: number };
}

export const ACCEPT_SQL = `
WITH
ki AS (SELECT * FROM json_to_recordset($1::json) AS x(item int, scope text, key text, body_hash text, status int, body text, headers text, created_at bigint, expires_at bigint)),
k AS (
  INSERT INTO ${S}.idempotency_keys AS t (scope, key, body_hash, status, body, headers, created_at, expires_at)
  SELECT scope, key, body_hash, status, body, headers, created_at, expires_at FROM ki
  ON CONFLICT (scope, key) DO UPDATE SET body_hash = EXCLUDED.body_hash, status = EXCLUDED.status, body = EXCLUDED.body,
    headers = EXCLUDED.headers, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
  WHERE t.expires_at <= EXCLUDED.created_at
  RETURNING scope, key),
lost AS (SELECT ki.item FROM ki WHERE NOT EXISTS (SELECT 1 FROM k WHERE k.scope = ki.scope AND k.key = ki.key)),
r AS (
  INSERT INTO ${S}.runs (id, session_key, name, status, action, source, created_at, idempotency_key)
  SELECT x.id, x.session_key, x.name, 'queued', x.action, x.source, x.created_at, x.idempotency_key
  FROM json_to_recordset($2::json) AS x(item int, ord int, id text, session_key text, name text, action text, source text, created_at text, idempotency_key text)
  WHERE x.item NOT IN (SELECT item FROM lost) ORDER BY x.ord
  RETURNING id, seq),
w AS (
  INSERT INTO ${S}.wakes (id, event, created_at)
  SELECT x.id, x.event, x.created_at FROM json_to_recordset($3::json) AS x(item int, ord int, id text, event text, created_at bigint)
  WHERE x.item NOT IN (SELECT item FROM lost) ORDER BY x.ord
  RETURNING seq),
d AS (
  INSERT INTO ${S}.deliveries (id, received_at, method, url, hook, mapping_id, client, status, code, latency_ms, idempotency_key, run_id, run_ids,
    replay_of, headers, body, body_stored, response, event, repeat, waited, response_headers, refused)
  SELECT x.id, x.received_at, x.method, x.url, x.hook, x.mapping_id, x.client, x.status, x.code, x.latency_ms, x.idempotency_key, x.run_id, x.run_ids,
    x.replay_of, x.headers, decode(x.body, 'base64'), x.body IS NOT NULL, x.response, x.event, x.repeat, x.waited, x.response_headers, x.refused
  FROM json_to_recordset($4::json) AS x(item int, ord int, id text, received_at bigint, method text, url text, hook text, mapping_id text, client text,
    status int, code text, latency_ms int, idempotency_key text, run_id text, run_ids text, replay_of text, headers text, body text, response text,
    event text, repeat boolean, waited boolean, response_headers text, refused boolean)
  WHERE x.item NOT IN (SELECT item FROM lost) ORDER BY x.ord
  -- A ledger row written again after an outage (pg-ledger-writer.ts) whose first statement did commit: stored once.
  ON CONFLICT (id) DO NOTHING
  RETURNING id, seq),
b AS (
  UPDATE ${S}.deliveries t SET times = t.times + x.n, last_at = x.last_at
  FROM json_to_recordset($5::json) AS x(seq bigint, client text, n int, last_at bigint)
  WHERE t.seq = x.seq AND t.client = x.client AND t.status = 429 AND t.refused
  RETURNING t.seq),
n AS (
  SELECT pg_notify('${PG_CHANNEL}', q.what) FROM (
    SELECT 'runs' AS what WHERE EXISTS (SELECT 1 FROM r) UNION ALL SELECT 'wakes' WHERE EXISTS (SELECT 1 FROM w)) AS q)
SELECT 'lost' AS kind, item::text AS ref, NULL::bigint AS seq FROM lost
UNION ALL SELECT 'run', id, seq FROM r
UNION ALL SELECT 'delivery', id, seq FROM d
UNION ALL SELECT 'fold', NULL, seq FROM b
UNION ALL SELECT 'notify', NULL, NULL FROM n`;

/** The ledger row's values, as the SQLite store keeps them (ledger-rows.ts `toRow`): refused rows bounded, bodies only with `storeBodies`. */
function deliveryValues(entry: LedgerEntry, storeBodies: boolean): Record<string, unknown> {
  const e = entry.refused ? refusedEntry(entry) : entry;
  const body = storeBodies && e.body && !e.refused ? e.body : undefined;
  return {
    id: e.id,
    received_at: e.receivedAt,
    method: pgText(e.method),
    url: pgText(e.url),
    hook: pgText(e.hook),
    mapping_id: pgText(e.mappingId),
    client: pgText(e.client),
    status: e.status,
    code: pgText(e.code),
    latency_ms: Math.max(0, Math.round(e.latencyMs)),
    idempotency_key: pgText(e.idempotencyKey),
    run_id: e.runIds[0] ?? null,
    run_ids: JSON.stringify(e.runIds),
    replay_of: e.replayOf ?? null,
    headers: storeBodies ? JSON.stringify(e.headers) : null,
    body: body ? body.toString("base64") : null,
    response: storeBodies && e.response !== undefined ? JSON.stringify(e.response) : null,
    event: pgText(e.event),
    repeat: e.repeat === true,
    waited: e.waited === true,
    response_headers: storeBodies && e.responseHeaders ? JSON.stringify(e.responseHeaders) : null,
    refused: e.refused === true,
  };
}

/** The statement's parameters for the requests of one batch (`item` is the request's index in it). */
export function acceptParameters(batch: readonly PgAcceptWrite[], storeBodies: boolean): unknown[] {
  const keys: unknown[] = [];
  const runs: unknown[] = [];
  const wakes: unknown[] = [];
  const deliveries: unknown[] = [];
  const folds: Array<{ seq: number; client: string; n: number; last_at: number }> = [];
  batch.forEach((write, item) => {
    const idem = write.idempotency;
    if (idem) {
      const { response } = idem;
      keys.push({
        item,
        scope: pgText(idem.scope),
        key: pgText(idem.key),
        body_hash: idem.bodyHash,
        status: response.status,
        body: response.body === undefined ? null : JSON.stringify(response.body),
        headers: response.headers && Object.keys(response.headers).length > 0 ? JSON.stringify(response.headers) : null,
        created_at: idem.createdAt,
        expires_at: idem.expiresAt,
      });
    }
    for (const run of write.runs ?? []) {
      runs.push({
        item,
        ord: runs.length,
        id: run.id,
        session_key: pgText(run.action.sessionKey),
        name: pgText(run.action.name),
        action: JSON.stringify(run.action),
        source: JSON.stringify(run.source),
        created_at: run.createdAt,
        idempotency_key: pgText(run.idempotencyKey),
      });
    }
    for (const wake of write.wakes ?? []) wakes.push({ item, ord: wakes.length, id: wake.id, event: JSON.stringify(wake.event), created_at: wake.createdAt });
    if (write.delivery) deliveries.push({ item, ord: deliveries.length, ...deliveryValues(write.delivery, storeBodies) });
    if (write.fold) {
      const open = folds.find((f) => f.seq === write.fold!.seq);
      if (open) {
        open.n++;
        open.last_at = Math.max(open.last_at, write.fold.at);
      } else folds.push({ seq: write.fold.seq, client: pgText(write.fold.client), n: 1, last_at: write.fold.at });
    }
  });
  return [keys, runs, wakes, deliveries, folds].map((rows) => JSON.stringify(rows));
}

export interface AcceptResultRow {
  kind: "lost" | "run" | "delivery" | "fold" | "notify";
  ref: string | null;
  seq: string | null;
}
