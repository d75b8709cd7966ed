/**
 * The plugin's durable store: one SQLite file (better-sqlite3) in the plugin's
 * state directory, shared by the run store and the idempotency guard.
 *
 * Durability choice (`hooks.durability`): WAL journal with `synchronous=NORMAL`
 * ("process", the default). Every committed transaction is in the WAL file (the OS
 * page cache) before the call returns, so a process crash or `kill -9` right after
 * a 202 loses nothing. Only an OS crash or power loss can lose the last few
 * commits; "os" (`synchronous: "FULL"`) syncs the WAL at every commit to survive
 * that too — affordable because the request path commits once per event-loop turn
 * (`batch`, write-batch.ts), not once per request.
 *
 * WAL checkpoints run on a worker thread (checkpointer.ts), not in the request path's
 * commits.
 *
 * Opening also recovers what a crash left behind: pending idempotency records are
 * completed from the run they produced, or dropped so a retry executes (see
 * idempotency-store.ts), and expired idempotency records are purged.
 *
 * Damaged state is refused before anything is written, each time with one line
 * naming the file and what to do: a write-ahead log with committed transactions
 * SQLite would silently drop (wal-check.ts), a file that is not a database, or a
 * database that `PRAGMA quick_check` finds damaged (its verdict is logged at
 * every open).
 *
 * @example
 *   const database = openPluginDatabase({ dir: api.stateDir, logger });
 *   const runs = createSqliteRunStore(database);
 */
import fs from "node:fs";
import path from "node:path";
import type { ModuleLogger } from "../core/logger";
import { migrate } from "./migrations";
import { checkWal } from "./wal-check";
import { logAfter } from "./wal-replay";
import { writeFileAtomic } from "../host-contract/atomic-write";
import { openSqlite, type SqliteDatabase } from "./sqlite-driver";
import { convertToIncrementalVacuum, reclaimFreePages, setIncrementalOnEmptyFile } from "./vacuum";
import { purgeExpiredIdempotency, recoverPendingIdempotency } from "./idempotency-store";
import { createWriteBatch, type WriteBatch } from "./write-batch";
import { startCheckpointer } from "./checkpointer";
import { dropDamagedSearchIndex, repairLedgerBeforeMigrations } from "./ledger-table";
import { mkdirPrivate, touchPrivate } from "../host-contract/private-fs";

export const DEFAULT_DATABASE_FILE = "inbound-webhooks.sqlite";

export interface PluginDatabase {
  /** The open connection. Owned by this object: close it through `close()`. */
  readonly db: SqliteDatabase;
  /** Absolute path of the database file. */
  readonly file: string;
  /** The group commit of the request path (write-batch.ts): one transaction per event-loop turn. */
  readonly batch: WriteBatch;
  /** False once `close()` ran. */
  readonly isOpen: boolean;
  /** Gives free pages back to the file system (vacuum.ts); the maintenance timer calls it. Returns how many. */
  reclaim(): number;
  /** Checkpoints the WAL and closes the connection. Idempotent. */
  close(): void;
}

export interface OpenPluginDatabaseOptions {
  /** Directory of the database file (created when missing). */
  dir: string;
  logger: ModuleLogger;
  /** Default `inbound-webhooks.sqlite`. */
  fileName?: string;
  /** Default "NORMAL" (survives process crashes); "FULL" also survives power loss. */
  synchronous?: "NORMAL" | "FULL";
  /** How long a statement waits for a lock held by another connection. Default 5000. */
  busyTimeoutMs?: number;
  /** Milliseconds since the epoch; default Date.now. Used to purge expired records. */
  clock?: () => number;
  /** How often free pages are given back (vacuum.ts); default 60 s. */
  maintenanceIntervalMs?: number;
  /** WAL checkpoints from a worker thread (checkpointer.ts); default true. False: SQLite's own, in the committing call. */
  backgroundCheckpoints?: boolean;
}

/**
 * Refuses a write-ahead log whose committed transactions SQLite would drop, unless the
 * damage lies in frames a checkpoint had already copied: then the log is rebuilt from
 * the frames after them (wal-replay.ts), keeping every transaction, with a warning and
 * the damaged log kept beside it. Call before the database is opened.
 */
function refuseDamagedWal(file: string, logger: ModuleLogger): void {
  const wal = `${file}-wal`;
  let found: ReturnType<typeof checkWal>;
  try {
    found = checkWal(wal);
  } catch (e) {
    throw new Error(
      `cannot read the plugin database's write-ahead log ${wal} (${(e as Error).message}). ` +
        `Make it a file the gateway's user can read and write; do not delete a real one (it holds committed transactions, accepted runs among them), but a directory in its place holds none and can be moved aside.`,
      { cause: e },
    );
  }
  if (found.lostCommits === 0) return;
  if (rebuildFromCopy(wal, found, logger)) return;
  throw new Error(
    `the plugin database's write-ahead log ${wal} is damaged: frame ${found.firstBadFrame} of ${found.frames} fails its checksum, ` +
      `so SQLite would silently drop the ${found.lostCommits} transaction(s) committed after it (accepted runs among them). ` +
      `Keep a copy of ${file} and ${wal}; then restore both from a backup, or ${walRepair(file, found)}`,
  );
}

/** Rebuilds the log when its damage lies in frames a finished checkpoint copied; false when it does not, or a later frame is damaged too. */
function rebuildFromCopy(wal: string, found: ReturnType<typeof checkWal>, logger: ModuleLogger): boolean {
  const copied = found.copied;
  if (!copied || found.firstBadFrame === undefined || found.firstBadFrame > copied.backfilled) return false;
  const original = fs.readFileSync(wal);
  const rebuilt = logAfter(original, copied.backfilled, copied.end);
  if (!rebuilt) return false;
  const kept = `${wal}.damaged-${new Date().toISOString().replace(/[:.]/g, "-")}`;
  try {
    writeFileAtomic(kept, original);
    writeFileAtomic(wal, rebuilt.bytes);
  } catch (e) {
    throw new Error(
      `the plugin database's write-ahead log ${wal} is damaged in frames a checkpoint had already copied, and rebuilding it from the frames after them failed (${(e as Error).message}); ` +
        `nothing was lost: free space (or fix the permissions) and start again`,
      { cause: e },
    );
  }
  logger.warn(
    `the plugin database's write-ahead log was damaged (frame ${found.firstBadFrame} of ${found.frames} failed its checksum) inside the ${copied.backfilled} frame(s) a checkpoint had already copied into the database file; ` +
      `it was rebuilt from the ${rebuilt.frames} frame(s) after them, keeping every committed transaction (${rebuilt.commits} in the log), and the damaged log was kept as ${kept}`,
    { wal },
  );
  return true;
}

/** The way out of a damaged log that leaves a consistent database, given how far a checkpoint had copied it (wal-check.ts). */
function walRepair(file: string, found: ReturnType<typeof checkWal>): string {
  const wal = `${file}-wal`;
  const copied = found.copied;
  if (!copied || copied.frames <= found.validFrames) {
    return `start without those transactions by cutting the log to its intact part: truncate -s ${found.validBytes} "${wal}"`;
  }
  if (copied.whole) {
    return (
      `start from the database file alone, which a checkpoint had already brought up to frame ${copied.frames} (cutting the log inside that would lay older pages over newer ones), ` +
      `losing the ${found.commitsAfterCopied ?? 0} transaction(s) committed after it: truncate -s 0 "${wal}"`
    );
  }
  return (
    `salvage what is readable: the database file holds part of the log (a checkpoint copied pages of frames up to ${copied.frames}), so neither the file alone nor a cut log is consistent. ` +
    `Move ${wal} and ${file}-shm aside first (opening the database with them would rewrite the file), then: sqlite3 "${file}" ".recover" | sqlite3 repaired.sqlite, and put repaired.sqlite in its place`
  );
}

/** Runs `PRAGMA quick_check`; logs its verdict and refuses a damaged database. */
function quickCheck(db: SqliteDatabase, file: string, logger: ModuleLogger): void {
  const findings = () => (db.pragma("quick_check") as Array<{ quick_check: string }>).map((r) => r.quick_check).filter((m) => m !== "ok");
  let problems = findings();
  // A damaged search index of the (diagnostic) ledger is dropped and built again from its rows: no reason to refuse the start.
  if (dropDamagedSearchIndex(db, problems, file, logger)) problems = findings();
  if (problems.length === 0) {
    logger.info("plugin database quick_check: ok", { database: file });
    return;
  }
  throw new Error(
    `the plugin database ${file} is damaged (PRAGMA quick_check found ${problems.length} problem(s), the first: ${problems[0]!.replace(/\s+/g, " ")}). ` +
      `Stop the gateway and keep a copy of it and its -wal; then repair it (sqlite3 "${file}" ".recover" | sqlite3 repaired.sqlite, and put repaired.sqlite in its place) or move it aside to start with an empty store.`,
  );
}

const DAMAGED_CODES = new Set(["SQLITE_NOTADB", "SQLITE_CORRUPT"]);
const WAL_SIZE_LIMIT_BYTES = 16 * 1024 * 1024;

/** Opens the file; a path SQLite cannot open (a directory in its place, no permission) fails naming it and what to do. */
function openOrExplain(file: string): SqliteDatabase {
  try {
    return openSqlite(file);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    throw new Error(
      `cannot open the plugin database ${file}: ${(e as Error).message}${typeof code === "string" ? ` (${code})` : ""}. Make it a file the gateway's user can read and write (not a directory), or move it aside to start with an empty store.`,
      { cause: e },
    );
  }
}

/** Opens (creating and migrating when needed) the plugin database. */
export function openPluginDatabase(options: OpenPluginDatabaseOptions): PluginDatabase {
  const { dir, logger } = options;
  const clock = options.clock ?? Date.now;
  mkdirPrivate(dir);
  const file = path.resolve(dir, options.fileName ?? DEFAULT_DATABASE_FILE);
  refuseDamagedWal(file, logger);
  // SQLite creates -wal and -shm with the database file's permissions: a 0600 file keeps all three private.
  try {
    touchPrivate(file);
  } catch {
    // Not a creatable file (a directory in its place, no permission): the open below explains it.
  }
  const db = openOrExplain(file);
  try {
    try {
      setIncrementalOnEmptyFile(db, file);
      db.pragma("journal_mode = WAL");
      quickCheck(db, file, logger);
    } catch (e) {
      const code = (e as { code?: string }).code;
      if (code && DAMAGED_CODES.has(code)) {
        throw new Error(
          `cannot open the plugin database ${file}: ${(e as Error).message} (${code}). Keep a copy of it, then restore it from a backup or move it (with its -wal and -shm files) aside to start with an empty store.`,
        );
      }
      throw e;
    }
    db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // better-sqlite3's build default; node:sqlite's SQLite defaults to 2 MB: the same cache for both.
    db.pragma("cache_size = -16000");
    // After a checkpoint the -wal file is cut back to this size instead of keeping its largest.
    db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
    convertToIncrementalVacuum(db, file, logger);
    db.pragma("foreign_keys = ON");
    // A ledger table the pending migrations would fail on is created again first (the ledger is diagnostic).
    repairLedgerBeforeMigrations(db, file, logger);
    const version = migrate(db);
    const recovered = recoverPendingIdempotency(db);
    const purged = purgeExpiredIdempotency(db, clock());
    logger.info("plugin database open", {
      driver: db.driver,
      schemaVersion: version,
      idempotencyCompleted: recovered.completed,
      idempotencyDropped: recovered.dropped,
      idempotencyPurged: purged,
    });
  } catch (e) {
    db.close();
    throw e;
  }

  let open = true;
  const batch = createWriteBatch(db);
  const checkpoints = options.backgroundCheckpoints === false ? undefined : startCheckpointer({ db, file, logger });
  const reclaim = (): number => {
    if (!open || !db.open) return 0;
    // Not inside the turn's group commit: the staged writes go first.
    batch.flush();
    return reclaimFreePages(db);
  };
  let reclaiming = false;
  /** One step, then the next on a later turn while there is more: a big prune is given back in minutes, never in one long block. */
  const reclaimSteps = (): void => {
    try {
      const pages = reclaim();
      if (pages > 0) {
        logger.debug("free pages given back to the file system", { pages });
        setImmediate(reclaimSteps);
        return;
      }
    } catch (e) {
      logger.warn("giving free pages back failed (they stay in the file and are reused)", { error: (e as Error).message, code: (e as { code?: string }).code });
    }
    reclaiming = false;
  };
  const maintenance = setInterval(() => {
    if (reclaiming) return;
    reclaiming = true;
    reclaimSteps();
  }, options.maintenanceIntervalMs ?? 60_000);
  maintenance.unref();
  return {
    db,
    file,
    batch,
    get isOpen() {
      return open && db.open;
    },
    reclaim,
    close() {
      if (!open) return;
      clearInterval(maintenance);
      batch.flush();
      checkpoints?.stop();
      open = false;
      if (!db.open) return;
      try {
        db.pragma("wal_checkpoint(TRUNCATE)");
      } catch (e) {
        logger.warn("WAL checkpoint at close failed", { error: (e as Error).message });
      }
      db.close();
      logger.info("plugin database closed");
    },
  };
}
