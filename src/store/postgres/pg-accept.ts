/**
 * The Postgres store's group commit (SPEC §16 "a 2xx means committed"): what every
 * request of one event-loop turn stores — its idempotency record with the answer, its
 * runs, its wakes and its ledger row — is written by **one statement**, so one round
 * trip and one commit per turn, and for each request all of it or none (a statement is
 * atomic; there is no pending state to recover after a crash).
 *
 * Idempotency by unique key (the model: River's unique-key upsert): the record is
 * inserted with `ON CONFLICT (scope, key) DO UPDATE … WHERE` the existing one expired.
 * A request whose key another request already holds — on this receiver or on another
 * one behind the balancer, committed or committing at the same moment (Postgres makes
 * the insert wait for the other's commit) — stores nothing: its promise settles with
 * `conflict` and the record that holds the key, whose answer the caller replays (or
 * refuses with `idempotency_key_reused` when the body differs). Two requests of one turn
 * with the same key are never in one statement: the second waits for the next.
 *
 * One statement is in flight at a time: what is staged meanwhile joins the next, so
 * the order of a receiver's requests is the order of their `seq`. The statement also
 * sends the NOTIFY that wakes the consumers (delivered at its commit).
 *
 * A statement that fails because Postgres is unavailable rejects every request of it
 * (503 `storage_unavailable`, nothing stored); one that fails for another reason is run
 * again request by request, so only the request at fault fails.
 *
 * @example
 *   const batch = createPgAcceptBatch(pool);
 *   const r = await batch.stage({ runs: [run], idempotency }); // { kind: "stored", runs: [{ id, seq }] } | { kind: "conflict", record }
 */
import type { IdempotencyRecord } from "../idempotency-store";
import type { PgPool } from "./pg-pool";
import { PG_SCHEMA as S } from "./pg-schema";
import { pgText } from "./pg-text";
import { ACCEPT_SQL, acceptParameters, type AcceptResultRow, type PgAcceptWrite } from "./pg-accept-statement";
import { pgIdempotencyRecord, type PgIdempotencyRow } from "./pg-rows";
import { unavailableCause } from "./pg-errors";

export type { PgAcceptWrite, PgIdempotencyInsert, PgRunInsert, PgWakeInsert } from "./pg-accept-statement";

export type PgAcceptResult =
  { kind: "stored"; runs: Array<{ id: string; seq: number }>; deliverySeq?: number; folded?: boolean } | { kind: "conflict"; record: IdempotencyRecord };

export interface PgAcceptBatch {
  stage(write: PgAcceptWrite): Promise<PgAcceptResult>;
  /** Resolves once everything staged so far is settled. */
  drain(): Promise<void>;
  /** Statements sent so far (round trips of the group commit; the bench reads it). */
  readonly statements: number;
}

interface Staged {
  write: PgAcceptWrite;
  resolve: (r: PgAcceptResult) => void;
  reject: (e: unknown) => void;
}

export interface PgAcceptBatchOptions {
  /** `hooks.ledger.storeBodies`: false keeps neither body, headers nor answer in the ledger. */
  storeBodies: boolean;
}

export function createPgAcceptBatch(pool: PgPool, options: PgAcceptBatchOptions): PgAcceptBatch {
  let staged: Staged[] = [];
  let inFlight: Promise<void> | undefined;
  let scheduled = false;
  let statements = 0;

  /** The records holding the keys of the requests that lost them. */
  async function holders(lost: readonly Staged[]): Promise<Map<string, IdempotencyRecord>> {
    const pairs = lost.map((s) => [pgText(s.write.idempotency!.scope), pgText(s.write.idempotency!.key)]);
    const { rows } = await pool.query<PgIdempotencyRow>(
      `SELECT * FROM ${S}.idempotency_keys WHERE (scope, key) IN (SELECT * FROM json_to_recordset($1::json) AS x(scope text, key text))`,
      [JSON.stringify(pairs.map(([scope, key]) => ({ scope, key })))],
    );
    return new Map(rows.map((r) => [JSON.stringify([r.scope, r.key]), pgIdempotencyRecord(r)]));
  }

  /** One statement for `batch`; settles each request's promise. */
  async function write(batch: Staged[]): Promise<void> {
    statements++;
    const { rows } = await pool.query<AcceptResultRow>(
      ACCEPT_SQL,
      acceptParameters(
        batch.map((s) => s.write),
        options.storeBodies,
      ),
    );
    const lostItems = new Set(rows.filter((r) => r.kind === "lost").map((r) => Number(r.ref)));
    const seqs = new Map(rows.filter((r) => r.kind === "run" || r.kind === "delivery").map((r) => [`${r.kind}:${r.ref}`, Number(r.seq)]));
    const folded = new Set(rows.filter((r) => r.kind === "fold").map((r) => Number(r.seq)));
    // The requests stored are answered first: what follows (reading the keys' holders) cannot undo their commit.
    batch.forEach((s, i) => {
      if (lostItems.has(i)) return;
      const result: PgAcceptResult = { kind: "stored", runs: (s.write.runs ?? []).map((run) => ({ id: run.id, seq: seqs.get(`run:${run.id}`)! })) };
      if (s.write.delivery) result.deliverySeq = seqs.get(`delivery:${s.write.delivery.id}`);
      if (s.write.fold) result.folded = folded.has(s.write.fold.seq);
      s.resolve(result);
    });
    const lost = batch.filter((_, i) => lostItems.has(i));
    if (lost.length === 0) return;
    let records: Map<string, IdempotencyRecord>;
    try {
      records = await holders(lost);
    } catch (e) {
      // Nothing of these requests was stored: each fails (503 when Postgres went away meanwhile).
      for (const s of lost) s.reject(e);
      return;
    }
    for (const s of lost) {
      const idem = s.write.idempotency!;
      const record = records.get(JSON.stringify([pgText(idem.scope), pgText(idem.key)]));
      // Held a moment ago and gone now (purged as expired in between): the request is tried again.
      if (record) s.resolve({ kind: "conflict", record });
      else restage(s);
    }
  }

  /** Sends the staged requests (those with a key already in this batch wait for the next). */
  async function flush(): Promise<void> {
    scheduled = false;
    const batch: Staged[] = [];
    const later: Staged[] = [];
    const keys = new Set<string>();
    for (const s of staged) {
      const idem = s.write.idempotency;
      const k = idem ? JSON.stringify([pgText(idem.scope), pgText(idem.key)]) : undefined;
      if (k !== undefined && keys.has(k)) later.push(s);
      else {
        if (k !== undefined) keys.add(k);
        batch.push(s);
      }
    }
    staged = later;
    try {
      await write(batch);
    } catch (e) {
      if (batch.length === 1 || unavailableCause(e) !== undefined) for (const s of batch) s.reject(e);
      // Another failure (a bug, a row Postgres refuses): request by request, so only the one at fault fails.
      else for (const s of batch) await write([s]).catch((one: unknown) => s.reject(one));
    }
  }

  function pump(): void {
    if (inFlight || staged.length === 0) return;
    inFlight = flush().finally(() => {
      inFlight = undefined;
      pump();
    });
  }

  function restage(s: Staged): void {
    staged.push(s);
    schedule();
  }

  function schedule(): void {
    if (scheduled) return;
    scheduled = true;
    // After the turn's I/O callbacks: every request parsed in this turn joins the statement.
    setImmediate(pump);
  }

  return {
    stage(w) {
      return new Promise<PgAcceptResult>((resolve, reject) => {
        staged.push({ write: w, resolve, reject });
        schedule();
      });
    },
    async drain() {
      while (inFlight || staged.length > 0) {
        pump();
        await inFlight;
      }
    },
    get statements() {
      return statements;
    },
  };
}
