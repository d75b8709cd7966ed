/**
 * The storage driver seam: the small part of a SQLite binding the store uses,
 * with two implementations chosen once per process —
 *   - `node:sqlite` (the runtime's built-in `DatabaseSync`, Node ≥ 22.13), and
 *   - `better-sqlite3` (a native addon, the only choice on Node 20).
 * The runtime's own SQLite is preferred: inside OpenClaw (Node 24) no native addon
 * is ever required, so installing the plugin builds none. better-sqlite3 is loaded
 * lazily, only when `node:sqlite` is absent (or asked for).
 *
 * Both give the store the same thing: rows as plain objects, BLOBs as Buffers,
 * `run()` → `{ changes }`, nested transactions as savepoints, and errors whose
 * `code` is SQLite's name (`SQLITE_FULL`, `SQLITE_IOERR_WRITE`, `SQLITE_NOTADB` …),
 * which is what storage-fault.ts maps to 503 `storage_unavailable`.
 *
 * `INBOUND_WEBHOOKS_SQLITE_DRIVER=better-sqlite3|node:sqlite` forces one (the test
 * suites use it; a user rarely needs it).
 *
 * @example
 *   const db = openSqlite("/state/inbound-webhooks.sqlite");
 *   db.prepare<[string], { id: string }>("SELECT id FROM runs WHERE id = ?").get("r1");
 */
import { openBetterSqlite3 } from "./driver-better-sqlite3";
import { nodeSqliteAvailable, openNodeSqlite } from "./driver-node-sqlite";
import type { OpenSqliteOptions, SqliteDatabase, SqliteDriverName } from "./sqlite-types";

export type { OpenSqliteOptions, SqliteDatabase, SqliteDriverName, SqliteStatement } from "./sqlite-types";

export const DRIVER_ENV = "INBOUND_WEBHOOKS_SQLITE_DRIVER";

/** The driver this process uses: the env override when set, else node:sqlite when the runtime has it. */
export function sqliteDriverName(env: NodeJS.ProcessEnv = process.env): SqliteDriverName {
  const forced = env[DRIVER_ENV];
  if (forced === "node:sqlite" || forced === "better-sqlite3") return forced;
  if (forced !== undefined && forced !== "") {
    throw new Error(`${DRIVER_ENV} must be "node:sqlite" or "better-sqlite3" (got "${forced}")`);
  }
  return nodeSqliteAvailable() ? "node:sqlite" : "better-sqlite3";
}

/** The drivers this runtime can load (for tests that run on each). */
export function availableSqliteDrivers(): SqliteDriverName[] {
  const found: SqliteDriverName[] = [];
  if (nodeSqliteAvailable()) found.push("node:sqlite");
  try {
    openBetterSqlite3(":memory:", {}).close();
    found.push("better-sqlite3");
  } catch {
    // Not installed, or built for another Node ABI.
  }
  return found;
}

/** Opens (creating when missing, unless read-only) a SQLite file with this process's driver. */
export function openSqlite(file: string, options: OpenSqliteOptions = {}, driver: SqliteDriverName = sqliteDriverName()): SqliteDatabase {
  if (driver === "node:sqlite") {
    if (!nodeSqliteAvailable()) throw new Error(`${DRIVER_ENV}=node:sqlite, but this Node ${process.version} has no node:sqlite (Node ≥ 22.13 has it)`);
    return openNodeSqlite(file, options);
  }
  return openBetterSqlite3(file, options);
}
