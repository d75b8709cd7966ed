/**
 * The durable RunStore: runs live in the `runs` table of the plugin database
 * (src/store/database.ts). A run accepted by a request is written by
 * `stageInsert()`, which joins the event-loop turn's group commit and resolves once
 * that transaction is committed (database.batch); every other write (`insert`,
 * `insertAll`, `update`) is a statement committed before the call returns. Either way
 * the 202 is sent only after the run would survive a `kill -9`.
 *
 * `action` and `source` are JSON columns; statuses and sequence are indexed for
 * recovery (`listByStatus`) and the idempotency key for crash recovery of
 * idempotency records.
 *
 * Finished runs are bounded by age and count (`retentionDays`, `maxFinished`;
 * run-prune.ts): pruned when the store is created and then every `pruneIntervalMs`
 * on an unref'd timer that stops when the database closes, in steps of at most
 * RUN_PRUNE_STEP_ROWS runs, one per turn of the event loop (setImmediate).
 *
 * Damaged rows (action or source not valid JSON, or missing a field the queue
 * needs) are skipped by `listByStatus` with a warning naming the database file and
 * the run id, and left untouched; `get()` of one throws a `DamagedRunError`.
 *
 * @example
 *   const store = createSqliteRunStore(openPluginDatabase({ dir, logger }));
 */
import type { PluginDatabase } from "./database";
import type { RunRecord, RunStore } from "../core/runs";
import type { ModuleLogger } from "../core/logger";
import { parseRunRow, type RunRow } from "./run-row";
import { createRunPruner, DEFAULT_MAX_FINISHED_RUNS, DEFAULT_RUN_RETENTION_DAYS } from "./run-prune";

export interface SqliteRunStoreOptions {
  /** Finished runs finished longer ago than this are deleted. Default 7. */
  retentionDays?: number;
  /** At most this many finished runs are kept. Default 1000. */
  maxFinished?: number;
  /** Background pruning period; default 60 s. */
  pruneIntervalMs?: number;
  /** Where damaged rows (skipped by `listByStatus`) are reported. */
  logger?: ModuleLogger;
  /** Milliseconds since the epoch; default Date.now. */
  clock?: () => number;
}

type Patch = Partial<Omit<RunRecord, "id" | "seq" | "action" | "source">>;

/** Record field → column, for the fields `update()` may change. */
const PATCH_COLUMNS: Record<keyof Patch, string> = {
  status: "status",
  createdAt: "created_at",
  startedAt: "started_at",
  finishedAt: "finished_at",
  summary: "summary",
  error: "error",
  idempotencyKey: "idempotency_key",
  summaryPending: "summary_pending",
  attempts: "attempts",
};

/** Thrown by `get()` for a row that cannot be read: names the database and the run. */
export class DamagedRunError extends Error {
  constructor(
    readonly file: string,
    readonly runId: string,
    readonly problem: string,
  ) {
    super(`run ${runId} in ${file} is damaged (${problem})`);
    this.name = "DamagedRunError";
  }
}

export function createSqliteRunStore(database: PluginDatabase, options: SqliteRunStoreOptions = {}): RunStore {
  const { db } = database;
  const clock = options.clock ?? Date.now;
  const prune = createRunPruner(db, {
    retentionDays: options.retentionDays ?? DEFAULT_RUN_RETENTION_DAYS,
    maxFinished: options.maxFinished ?? DEFAULT_MAX_FINISHED_RUNS,
    clock,
  });
  let pruning = false;
  /** One step (at most RUN_PRUNE_STEP_ROWS runs), then the next on a later turn while a limit is still passed: never one long block. */
  const pruneSteps = (removed = 0): void => {
    if (!db.open) return void (pruning = false);
    try {
      const r = prune();
      if (r.more) return void setImmediate(pruneSteps, removed + r.removed);
      if (removed + r.removed > 0) options.logger?.debug("finished runs pruned", { removed: removed + r.removed });
    } catch (e) {
      options.logger?.warn("pruning finished runs failed", { error: (e as Error).message, code: (e as { code?: string }).code });
    }
    pruning = false;
  };
  const pruneInBackground = (): void => {
    if (pruning) return;
    pruning = true;
    pruneSteps();
  };
  // At start: the first step now, the rest from the next turn on.
  pruneInBackground();
  const pruneTimer = setInterval(() => {
    if (!db.open) return clearInterval(pruneTimer);
    pruneInBackground();
  }, options.pruneIntervalMs ?? 60_000);
  pruneTimer.unref();

  // Bound by position (cheaper per INSERT than named parameters), in rowOf's order.
  const insertStmt = db.prepare<unknown[]>(
    `INSERT INTO runs (id, seq, status, action, source, created_at, started_at, finished_at, summary, error, idempotency_key, summary_pending, attempts, name, session_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const getStmt = db.prepare<[string], RunRow>("SELECT * FROM runs WHERE id = ?");
  const countQueuedStmt = db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE status = 'queued'");
  const maxSeqStmt = db.prepare<[], { m: number | null }>("SELECT MAX(seq) AS m FROM runs");
  const updateStmts = new Map<string, ReturnType<typeof db.prepare>>();
  const listStmts = new Map<string, ReturnType<typeof db.prepare<unknown[], RunRow>>>();

  let seq = (maxSeqStmt.get()?.m ?? 0) + 1;
  /** Damaged rows already reported by this store (each is reported once per start). */
  const reported = new Set<string>();

  /** The run of a listed row; a damaged row is reported (database, run id, reason, what to do) and skipped. */
  const listed = (row: RunRow): RunRecord[] => {
    const parsed = parseRunRow(row);
    if (parsed.ok) return [parsed.run];
    if (!reported.has(row.id)) {
      reported.add(row.id);
      options.logger?.warn(
        `run ${row.id} in ${database.file} is damaged (${parsed.problem}) and was skipped; it stays in the database as it is. ` +
          `Inspect it, or remove it with: sqlite3 "${database.file}" "DELETE FROM runs WHERE id = '${row.id}'"`,
        { runId: row.id, status: row.status, database: database.file },
      );
    }
    return [];
  };

  const rowOf = (run: RunRecord): unknown[] => [
    run.id,
    run.seq,
    run.status,
    JSON.stringify(run.action),
    JSON.stringify(run.source),
    run.createdAt,
    run.startedAt ?? null,
    run.finishedAt ?? null,
    run.summary ?? null,
    run.error ?? null,
    run.idempotencyKey ?? null,
    run.summaryPending ? 1 : 0,
    run.attempts ?? 0,
    // What a listing shows of the action (migration 11), so that it never parses one.
    run.action.name,
    run.action.sessionKey,
  ];

  return {
    insert(run) {
      insertStmt.run(...rowOf(run));
      if (run.seq >= seq) seq = run.seq + 1;
    },
    insertAll(runs) {
      db.transaction(() => {
        for (const run of runs) insertStmt.run(...rowOf(run));
      }, "immediate")();
      for (const run of runs) if (run.seq >= seq) seq = run.seq + 1;
    },
    stageInsert(run) {
      const row = rowOf(run);
      if (run.seq >= seq) seq = run.seq + 1;
      return database.batch.stage(() => void insertStmt.run(...row));
    },
    flush: () => database.batch.flush(),
    update(id, patch) {
      // Like the memory store: a key whose value is `undefined` leaves the column unchanged.
      const fields = (Object.keys(patch) as Array<keyof Patch>).filter((k) => k in PATCH_COLUMNS && patch[k] !== undefined).sort();
      if (fields.length === 0) {
        if (!getStmt.get(id)) throw new Error(`run ${id} does not exist`);
        return;
      }
      const sig = fields.join(",");
      let stmt = updateStmts.get(sig);
      if (!stmt) {
        stmt = db.prepare(`UPDATE runs SET ${fields.map((f) => `${PATCH_COLUMNS[f]} = @${f}`).join(", ")} WHERE id = @id`);
        updateStmts.set(sig, stmt);
      }
      const params: Record<string, unknown> = { id };
      for (const f of fields) {
        const v = patch[f];
        params[f] = typeof v === "boolean" ? Number(v) : v; // SQLite has no booleans
      }
      if (stmt.run(params).changes === 0) throw new Error(`run ${id} does not exist`);
    },
    get(id) {
      const row = getStmt.get(id);
      if (!row) return undefined;
      const parsed = parseRunRow(row);
      if (!parsed.ok) throw new DamagedRunError(database.file, id, parsed.problem);
      return parsed.run;
    },
    listByStatus(statuses) {
      if (statuses.length === 0) return [];
      const sig = String(statuses.length);
      let stmt = listStmts.get(sig);
      if (!stmt) {
        stmt = db.prepare<unknown[], RunRow>(`SELECT * FROM runs WHERE status IN (${statuses.map(() => "?").join(", ")}) ORDER BY seq ASC`);
        listStmts.set(sig, stmt);
      }
      return stmt.all(...statuses).flatMap(listed);
    },
    countQueued() {
      return countQueuedStmt.get()?.n ?? 0;
    },
    nextSeq() {
      return seq++;
    },
    close() {
      database.close();
    },
  };
}
