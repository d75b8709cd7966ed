/**
 * The delivery ledger's table and its search index, made usable again at start when
 * they are missing or damaged: the ledger is diagnostic, so a damaged one never stops
 * the gateway (runs and idempotency records are kept). Each repair is one transaction:
 * a crash or a full disk in the middle leaves the file as it was, to be repaired at the
 * next start.
 *   - Before the migrations (`repairLedgerBeforeMigrations`, database.ts): a database
 *     written at an older schema whose `deliveries` table is missing or lacks a column
 *     of that schema would fail the migrations that read the table (migration 7 indexes
 *     its rows), and with them the whole start; the table is created again, empty, at
 *     that schema, and the migrations go on; at schema 4 a search index that is missing
 *     or unusable is built again from the rows (migration 5 reads it).
 *   - After them (`ensureLedgerTable`, ledger-store.ts): the table as the current schema
 *     has it; and a search index that is missing or unusable while the rows are fine is
 *     built again from the rows (migration 10's statement), keeping them.
 *
 * @example
 *   repairLedgerBeforeMigrations(db, file, logger); // then migrate(db)
 *   ensureLedgerTable(db, file, logger);            // then prepare the ledger's statements
 */
import type { ModuleLogger } from "../core/logger";
import { LEDGER_INDEX_IDS_SCHEMA, MIGRATIONS, RUNS_ONLY_VERSIONS, SEARCH_BODY_CHARS, SEARCH_INDEX_INSERT, searchIndexDelete } from "./migrations";
import { openSqlite, type SqliteDatabase } from "./sqlite-driver";

/** The migration that creates `deliveries`; it and every later one not in RUNS_ONLY_VERSIONS concern only the ledger. */
const LEDGER_FIRST_VERSION = 3;

/** The schema whose pending migration 5 reads the search index (migration 4 creates it, 7 builds it again). */
const INDEX_READ_VERSION = 4;

/** The columns of `deliveries` as the migrations up to `version` make it (read from an empty in-memory database). */
function ledgerColumnsAt(version: number, driver: SqliteDatabase["driver"]): string[] {
  const scratch = openSqlite(":memory:", {}, driver);
  try {
    for (const sql of MIGRATIONS.slice(0, version)) scratch.exec(sql);
    return scratch.pragma("table_info(deliveries)").map((c) => (c as { name: string }).name);
  } finally {
    scratch.close();
  }
}

/** What is wrong with `deliveries` for these columns: "missing", the error reading them, or undefined. */
function tableProblem(db: SqliteDatabase, columns: readonly string[]): string | undefined {
  if (!db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'deliveries'").get()) return "missing";
  try {
    db.prepare(`SELECT ${columns.join(", ")} FROM deliveries LIMIT 0`).all();
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}

/** Drops the table and its index and creates them again, empty, as the migrations up to `version` make them; one transaction. */
function recreate(db: SqliteDatabase, version: number): void {
  db.transaction(() => {
    db.exec("DROP TABLE IF EXISTS deliveries; DROP TABLE IF EXISTS deliveries_fts");
    for (let v = LEDGER_FIRST_VERSION; v <= version; v++) if (!RUNS_ONLY_VERSIONS.has(v)) db.exec(MIGRATIONS[v - 1]!);
  }, "immediate")();
}

function report(problem: string, file: string, logger: ModuleLogger): void {
  if (problem === "missing") logger.warn(`the delivery ledger table was missing from ${file}; it was created again, empty`, { database: file });
  else
    logger.error(`the delivery ledger table in ${file} is damaged (${problem}); it was dropped and created again, empty (runs are not affected)`, {
      database: file,
    });
}

/** What FTS5's part of `PRAGMA quick_check` names when the ledger's search index is damaged. */
const INDEX_FINDING = 'table "deliveries_fts"';

/**
 * At open, before `migrate()`: when every problem `PRAGMA quick_check` found is in the
 * ledger's search index, the index is dropped (it is built again from the rows by migration
 * 10 or `ensureLedgerTable`) and true returned, so a damaged index does not refuse the start.
 * At schema 4 (migration 5 reads the index) it is built again at once, as migration 4 made
 * it, in the same transaction as the drop: a crash or a full disk leaves it as it was.
 */
export function dropDamagedSearchIndex(db: SqliteDatabase, problems: readonly string[], file: string, logger: ModuleLogger): boolean {
  if (problems.length === 0 || !problems.every((p) => p.includes(INDEX_FINDING))) return false;
  const version = db.pragmaValue("user_version") as number;
  if (version < INDEX_READ_VERSION) return false;
  logger.error(
    `the delivery ledger's search index in ${file} is damaged (PRAGMA quick_check: ${problems[0]}); it was dropped and is built again from the stored rows`,
    { database: file },
  );
  if (version === INDEX_READ_VERSION) db.transaction(() => db.exec(SCHEMA_4_INDEX), "immediate")();
  else db.exec("DROP TABLE deliveries_fts");
  return true;
}

/** The search index as migration 4 makes it (migration 5 deletes from it, which needs contentless_delete), built from the rows. */
const SCHEMA_4_INDEX = `
  DROP TABLE IF EXISTS deliveries_fts;
  CREATE VIRTUAL TABLE deliveries_fts USING fts5(hook, event, status, body, content='', contentless_delete=1);
  INSERT INTO deliveries_fts (rowid, hook, event, status, body)
    SELECT seq, hook, event, status, CASE WHEN body_stored = 1 THEN substr(CAST(body AS TEXT), 1, ${SEARCH_BODY_CHARS}) END FROM deliveries;
`;

/**
 * At schema 4 only, a search index that is missing or unusable is created again as
 * migration 4 left it, from the rows, so migration 5 can read it; one transaction.
 */
function repairIndexAtSchema4(db: SqliteDatabase, version: number, file: string, logger: ModuleLogger): void {
  if (version !== INDEX_READ_VERSION) return;
  try {
    db.prepare("SELECT rowid FROM deliveries_fts LIMIT 0").all();
    return;
  } catch (e) {
    logger.error(`the delivery ledger's search index in ${file} is missing or damaged (${(e as Error).message}); it was built again from the stored rows`, {
      database: file,
    });
  }
  db.transaction(() => db.exec(SCHEMA_4_INDEX), "immediate")();
}

/** Before `migrate()`: a ledger table (or, at schema 4, its search index) the pending migrations could not read is created again at the database's own schema. */
export function repairLedgerBeforeMigrations(db: SqliteDatabase, file: string, logger: ModuleLogger): void {
  const version = db.pragmaValue("user_version") as number;
  if (version < LEDGER_FIRST_VERSION || version >= MIGRATIONS.length) return;
  const problem = tableProblem(db, ledgerColumnsAt(version, db.driver));
  if (problem === undefined) return repairIndexAtSchema4(db, version, file, logger);
  report(problem, file, logger);
  recreate(db, version);
}

/** After `migrate()`: the table and its search index as the ledger's statements need them. */
export function ensureLedgerTable(db: SqliteDatabase, file: string, columns: readonly string[], logger: ModuleLogger): void {
  const problem = tableProblem(db, columns);
  if (problem !== undefined) {
    report(problem, file, logger);
    recreate(db, MIGRATIONS.length);
    return;
  }
  try {
    db.prepare(SEARCH_INDEX_INSERT);
    db.prepare(searchIndexDelete("SELECT 0"));
  } catch (e) {
    logger.error(`the delivery ledger's search index in ${file} is missing or damaged (${(e as Error).message}); it was built again from the stored rows`, {
      database: file,
    });
    db.transaction(() => db.exec(LEDGER_INDEX_IDS_SCHEMA), "immediate")();
  }
}
