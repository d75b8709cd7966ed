/**
 * A second connection to a database file that may write FTS5's own tables (SQLite's
 * defensive mode off; the store's drivers keep it on), with the process's driver: how
 * the tests damage the ledger's search index.
 */
import { sqliteDriverName } from "../../src/store/sqlite-driver";

export interface RawConnection {
  exec(sql: string): void;
  close(): void;
}

export function writableShadowTables(file: string): RawConnection {
  /* eslint-disable @typescript-eslint/no-require-imports */
  if (sqliteDriverName() === "node:sqlite") {
    const { DatabaseSync } = require("node:sqlite") as { DatabaseSync: new (f: string, o: { defensive: boolean }) => RawConnection };
    return new DatabaseSync(file, { defensive: false });
  }
  const Database = require("better-sqlite3") as new (f: string) => RawConnection & { unsafeMode(on: boolean): void };
  /* eslint-enable @typescript-eslint/no-require-imports */
  const db = new Database(file);
  db.unsafeMode(true);
  return db;
}

/** Overwrites every block of the search index's segments (not its structure record) with 0xFF bytes. */
export const DAMAGE_INDEX_SEGMENTS = "UPDATE deliveries_fts_data SET block = unhex(replace(hex(zeroblob(length(block))), '0', 'F')) WHERE id > 10";
