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
 * idempotency-store.ts) — except those another open connection of this process still
 * handles (keys-in-flight.ts) — and expired idempotency records are purged.
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
import path from "node:path";
import type { ModuleLogger } from "../core/logger";
import { migrate } from "./migrations";
import { refuseDamagedWal } from "./wal-at-start";
import { openSqlite, type SqliteDatabase } from "./sqlite-driver";
import { convertToIncrementalVacuum, reclaimFreePages, setIncrementalOnEmptyFile } from "./vacuum";
import { purgeExpiredIdempotency, recoverPendingIdempotency } from "./idempotency-store";
import { isKeyInFlight } from "./keys-in-flight";
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
    // Not the records another connection of this process still handles (a plugin instance reloaded beside this one).
    const recovered = recoverPendingIdempotency(db, (id) => isKeyInFlight(file, id));
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
