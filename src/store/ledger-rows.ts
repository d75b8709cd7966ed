/**
 * Reading the `deliveries` table (the delivery ledger, SPEC §11): a filtered page of
 * rows newest first, one row in full, and the counts the summary needs. Rows are
 * turned into the host contract's DeliverySummary / DeliveryDetail shapes here, so
 * the HTTP API, the CLI and the host's inspector all see the same fields.
 */
import { redactHeaders, redactText } from "../host-contract/redaction";
import type { SqliteDatabase } from "./sqlite-types";
import type { DeliveryDetail, DeliverySummary } from "../core/inspection";
import { ftsQuery } from "./ledger-search";

export interface DeliveryRow {
  seq: number;
  id: string;
  received_at: number;
  method: string;
  url: string;
  hook: string | null;
  mapping_id: string | null;
  client: string;
  status: number;
  code: string | null;
  latency_ms: number;
  idempotency_key: string | null;
  run_ids: string;
  replay_of: string | null;
  event: string | null;
  repeat: number;
  waited: number;
  refused: number;
  times: number;
  last_at: number | null;
  headers?: string | null;
  body?: Buffer | null;
  body_stored?: number;
  response?: string | null;
  response_headers?: string | null;
}

/** A validated listing query (src/intake/ledger/ledger-query.ts checks the raw one). */
export interface LedgerListQuery {
  limit: number;
  /** Only rows older than the row with this id. */
  before?: string;
  hook?: string;
  /** Inclusive status range: `[404, 404]` or `[400, 499]`. */
  status?: readonly [number, number];
  /** ms since the epoch. */
  since?: number;
  /** ms since the epoch: only rows received at or before it (a bulk replay's preview fixes it). */
  until?: number;
  /** Words to find (ledger-search.ts). */
  search?: string;
  /** Only rows a replay can run again: not a replay itself, not refused before authentication, stored with its body (bulk replay, src/intake/bulk-replay.ts). */
  originals?: boolean;
}

/** A stored delivery in full, with the raw body bytes for replay and dry runs. */
export interface StoredDelivery extends DeliveryDetail {
  /** False when the ledger kept no body (`hooks.ledger.storeBodies: false`). */
  bodyStored: boolean;
  rawBody?: Buffer;
}

export const SUMMARY_COLUMNS =
  "seq, id, received_at, method, url, hook, mapping_id, client, status, code, latency_ms, idempotency_key, run_ids, replay_of, event, repeat, waited, refused, times, last_at";

/**
 * What the pipeline records about one request (headers already redacted): a delivery's
 * summary (with the time in ms since the epoch), plus what its detail shows.
 */
export type LedgerEntry = Omit<DeliverySummary, "receivedAt" | "count" | "lastAt"> & {
  /** ms since the epoch. */
  receivedAt: number;
  /** Lower-case names, credentials/signatures/cookies redacted. */
  headers: Record<string, string>;
  /** Undefined when the body was not read (refused before, or too large). */
  body?: Buffer;
  /** The JSON answer the sender got (undefined for 204). */
  response?: unknown;
  /** The answer's headers (lower-case names); kept only with the body (`storeBodies`). */
  responseHeaders?: Record<string, string>;
};

/** The INSERT's columns, in the order toRow gives their values (positional binding: no lookup by name per value). */
export const INSERT_COLUMNS =
  "id, received_at, method, url, hook, mapping_id, client, status, code, latency_ms, idempotency_key, run_id, run_ids, replay_of, headers, body, body_stored, response, event, repeat, waited, response_headers, refused";

export function toRow(e: LedgerEntry, storeBodies: boolean): unknown[] {
  const body = storeBodies && e.body && !e.refused ? e.body : null;
  return [
    e.id,
    e.receivedAt,
    e.method,
    e.url,
    e.hook ?? null,
    e.mappingId ?? null,
    e.client,
    e.status,
    e.code ?? null,
    Math.max(0, Math.round(e.latencyMs)),
    e.idempotencyKey ?? null,
    e.runIds[0] ?? null,
    JSON.stringify(e.runIds),
    e.replayOf ?? null,
    storeBodies ? JSON.stringify(e.headers) : null,
    body,
    body ? 1 : 0,
    storeBodies && e.response !== undefined ? JSON.stringify(e.response) : null,
    e.event ?? null,
    e.repeat ? 1 : 0,
    e.waited ? 1 : 0,
    storeBodies && e.responseHeaders ? JSON.stringify(e.responseHeaders) : null,
    e.refused ? 1 : 0,
  ];
}

/** The summary of a row just written, built from the entry itself (what reading the row back would give). */
export function entrySummary(e: LedgerEntry): DeliverySummary {
  const { headers: _headers, body: _body, response: _response, responseHeaders: _responseHeaders, ...summary } = e;
  return { ...summary, receivedAt: new Date(e.receivedAt).toISOString(), latencyMs: Math.max(0, Math.round(e.latencyMs)), runIds: [...e.runIds] };
}

function parseRunIds(text: string): string[] {
  try {
    const v: unknown = JSON.parse(text);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}

export function toDeliverySummary(row: DeliveryRow): DeliverySummary {
  const d: DeliverySummary = {
    id: row.id,
    receivedAt: new Date(row.received_at).toISOString(),
    method: row.method,
    // Rows written before the one redaction rule may hold credentials it hides: applied on read too.
    url: redactText(row.url),
    client: row.client,
    status: row.status,
    latencyMs: row.latency_ms,
    runIds: parseRunIds(row.run_ids),
  };
  if (row.hook !== null) d.hook = row.hook;
  if (row.mapping_id !== null) d.mappingId = row.mapping_id;
  if (row.code !== null) d.code = row.code;
  if (row.idempotency_key !== null) d.idempotencyKey = row.idempotency_key;
  if (row.replay_of !== null) d.replayOf = row.replay_of;
  if (row.event !== null) d.event = row.event;
  if (row.repeat === 1) d.repeat = true;
  if (row.waited === 1) d.waited = true;
  if (row.refused === 1) d.refused = true;
  if (row.times > 1) d.count = row.times;
  if (row.last_at !== null) d.lastAt = new Date(row.last_at).toISOString();
  return d;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

export function toStoredDelivery(row: DeliveryRow): StoredDelivery {
  const out: StoredDelivery = { ...toDeliverySummary(row), headers: {}, bodyStored: row.body_stored === 1 };
  if (row.headers) {
    try {
      out.headers = redactHeaders(JSON.parse(row.headers) as Record<string, string>);
    } catch {
      out.headers = {};
    }
  }
  if (out.bodyStored) {
    const raw = row.body ?? Buffer.alloc(0);
    out.rawBody = raw;
    try {
      out.body = utf8.decode(raw);
    } catch {
      out.bodyBase64 = raw.toString("base64");
    }
  }
  if (row.response) {
    try {
      out.response = JSON.parse(row.response) as unknown;
    } catch {
      /* an unreadable answer is left out */
    }
  }
  if (row.response_headers) {
    try {
      out.responseHeaders = JSON.parse(row.response_headers) as Record<string, string>;
    } catch {
      /* unreadable headers are left out */
    }
  }
  return out;
}

/** Prepared reads of the ledger. Each call throws when the table cannot be read. */
export function createLedgerReader(db: SqliteDatabase) {
  const byId = db.prepare<[string], DeliveryRow>("SELECT * FROM deliveries WHERE id = ?");
  const seqOf = db.prepare<[string], { seq: number }>("SELECT seq FROM deliveries WHERE id = ?");
  const byRun = db.prepare<[string], { id: string }>("SELECT id FROM deliveries WHERE run_id = ? ORDER BY seq DESC LIMIT 1");
  const count = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM deliveries");
  const last = db.prepare<[], { t: number | null }>("SELECT MAX(received_at) AS t FROM deliveries");

  return {
    /** Undefined when `before` names no row (the caller reports it). */
    list(q: LedgerListQuery): DeliverySummary[] | undefined {
      const where: string[] = [];
      const params: Array<string | number> = [];
      if (q.before !== undefined) {
        const anchor = seqOf.get(q.before);
        if (!anchor) return undefined;
        where.push("seq < ?");
        params.push(anchor.seq);
      }
      if (q.hook !== undefined) {
        where.push("hook = ?");
        params.push(q.hook);
      }
      if (q.status !== undefined) {
        where.push("status BETWEEN ? AND ?");
        params.push(q.status[0], q.status[1]);
      }
      if (q.since !== undefined) {
        where.push("received_at >= ?");
        params.push(q.since);
      }
      if (q.until !== undefined) {
        where.push("received_at <= ?");
        params.push(q.until);
      }
      if (q.originals === true) where.push("replay_of IS NULL AND refused = 0 AND body_stored = 1");
      const match = q.search === undefined ? undefined : ftsQuery(q.search);
      // Words without a term (`!!!`) find nothing.
      if (match === null) return [];
      if (match !== undefined) {
        where.push("seq IN (SELECT rowid FROM deliveries_fts WHERE deliveries_fts MATCH ?)");
        params.push(match);
      }
      const sql = `SELECT ${SUMMARY_COLUMNS} FROM deliveries${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY seq DESC LIMIT ?`;
      try {
        return db
          .prepare<Array<string | number>, DeliveryRow>(sql)
          .all(...params, q.limit)
          .map(toDeliverySummary);
      } catch (e) {
        // A term with a character SQLite's tokenizer (its Unicode tables) separates where ours does not: the index holds it as two terms, never as this one.
        if (match !== undefined && /phrase queries are not supported/.test((e as Error).message)) return [];
        throw e;
      }
    },
    get(id: string): StoredDelivery | undefined {
      const row = byId.get(id);
      return row ? toStoredDelivery(row) : undefined;
    },
    deliveryOfRun(runId: string): string | undefined {
      return byRun.get(runId)?.id;
    },
    count(): number {
      return count.get()?.n ?? 0;
    },
    lastReceivedAt(): number | undefined {
      return last.get()?.t ?? undefined;
    },
  };
}

export type LedgerReader = ReturnType<typeof createLedgerReader>;
