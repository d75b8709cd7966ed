/**
 * Rows of the Postgres store turned into the records the plugin uses, through the
 * same readers as the SQLite store (run-row.ts, ledger-rows.ts): `pg` returns `bigint`
 * columns as strings and booleans as booleans, which these readers take as numbers.
 *
 * @example const run = parsePgRun(row); // { ok: true, run } | { ok: false, problem }
 */
import type { IdempotencyRecord } from "../idempotency-store";
import { parseRunRow, type RunRow } from "../run-row";
import type { DeliveryRow } from "../ledger-rows";
import type { HookResponse } from "../../core/ports";

export interface PgRunRow extends Omit<RunRow, "seq" | "summary_pending"> {
  seq: string | number;
  summary_pending: boolean;
}

/** The run of a row, or why it cannot be used (as the SQLite store reads it). */
export function parsePgRun(row: PgRunRow): ReturnType<typeof parseRunRow> {
  return parseRunRow({ ...row, seq: Number(row.seq), summary_pending: row.summary_pending ? 1 : 0 });
}

export interface PgDeliveryRow extends Omit<DeliveryRow, "seq" | "received_at" | "last_at" | "repeat" | "waited" | "refused" | "body_stored"> {
  seq: string | number;
  received_at: string | number;
  last_at: string | number | null;
  repeat: boolean;
  waited: boolean;
  refused: boolean;
  body_stored?: boolean;
}

export function toDeliveryRow(row: PgDeliveryRow): DeliveryRow {
  const { body_stored, ...rest } = row;
  const out: DeliveryRow = {
    ...rest,
    seq: Number(row.seq),
    received_at: Number(row.received_at),
    last_at: row.last_at === null ? null : Number(row.last_at),
    repeat: row.repeat ? 1 : 0,
    waited: row.waited ? 1 : 0,
    refused: row.refused ? 1 : 0,
  };
  if (body_stored !== undefined) out.body_stored = body_stored ? 1 : 0;
  return out;
}

export interface PgIdempotencyRow {
  scope: string;
  key: string;
  body_hash: string;
  status: number;
  body: string | null;
  headers: string | null;
  created_at: string | number;
  expires_at: string | number;
}

/** A stored answer (Postgres keeps only complete records: the answer is written with the request's effect). */
export function pgIdempotencyRecord(row: PgIdempotencyRow): IdempotencyRecord {
  const response: HookResponse = { status: row.status };
  if (row.body !== null) response.body = JSON.parse(row.body);
  if (row.headers !== null) response.headers = JSON.parse(row.headers) as Record<string, string>;
  return {
    scope: row.scope,
    key: row.key,
    bodyHash: row.body_hash,
    state: "complete",
    response,
    createdAt: Number(row.created_at),
    expiresAt: Number(row.expires_at),
  };
}
