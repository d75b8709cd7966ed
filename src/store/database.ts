/**
 * The plugin's durable store: one SQLite file (better-sqlite3) in the plugin's
 * state directory, shared by the run store and the idempotency guard.
 *
 * Durability choice: WAL journal with `synchronous=NORMAL`. Every committed
 * transaction is in the WAL file (the OS page cache) before the call returns, so
 * a process crash or `kill -9` right after a 202 loses nothing. Only an OS crash or
 * power loss can lose the last few commits; pass `synchronous: "FULL"` to trade
 * throughput for that too.
 *
 * Opening also recovers what a crash left behind: pending idempotency records are
 * completed from the run they produced, or dropped so a retry executes (see
 * idempotency-store.ts), and expired idempotency records are purged.
 *
 * @example
 *   const database = openPluginDatabase({ dir: api.stateDir, logger });
 *   const runs = createSqliteRunStore(database);
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import type { ModuleLogger } from "../core/logger";
import { migrate } from "./migrations";
import { purgeExpiredIdempotency, recoverPendingIdempotency } from "./idempotency-store";

export const DEFAULT_DATABASE_FILE = "inbound-webhooks.sqlite";

export interface PluginDatabase {
  /** The open connection. Owned by this object: close it through `close()`. */
  readonly db: Database.Database;
  /** Absolute path of the database file. */
  readonly file: string;
  /** False once `close()` ran. */
  readonly isOpen: boolean;
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
}

/** Opens (creating and migrating when needed) the plugin database. */
export function openPluginDatabase(options: OpenPluginDatabaseOptions): PluginDatabase {
  const { dir, logger } = options;
  const clock = options.clock ?? Date.now;
  fs.mkdirSync(dir, { recursive: true });
  const file = path.resolve(dir, options.fileName ?? DEFAULT_DATABASE_FILE);
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`synchronous = ${options.synchronous ?? "NORMAL"}`);
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    db.pragma("foreign_keys = ON");
    const version = migrate(db);
    const recovered = recoverPendingIdempotency(db);
    const purged = purgeExpiredIdempotency(db, clock());
    logger.info("plugin database open", {
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
  return {
    db,
    file,
    get isOpen() {
      return open && db.open;
    },
    close() {
      if (!open) return;
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
