/**
 * Giving the file system back what pruning frees (SPEC §7 "Bounded disk"). SQLite keeps
 * deleted pages as free pages inside the file; with `auto_vacuum = INCREMENTAL` they can
 * be released a few at a time (`PRAGMA incremental_vacuum`) without rewriting the file.
 *
 * - A new database gets INCREMENTAL before its first page is written (free): before
 *   `journal_mode = WAL`, which writes page 1 of an empty file and so fixes the mode.
 * - An existing file (created before this version) needs one full VACUUM to switch. It
 *   runs once, at open, before anything else is written — and only when the state dir
 *   and the temp dir each have room for a copy of the file plus a margin (VACUUM copies
 *   the file into a temp database, then writes it back through the WAL). VACUUM is one
 *   transaction: a crash or a full disk in the middle leaves the file as it was (the
 *   failure is logged and the next start tries again); a start without room logs how much
 *   is needed and goes on unconverted.
 * - `reclaimFreePages` (the database's maintenance timer, every minute, step after step on
 *   later turns until done) releases free pages beyond RECLAIM_MIN_PAGES, at most
 *   RECLAIM_STEP_PAGES per call, so no call holds the event loop for long; the file
 *   shrinks at the next WAL checkpoint.
 *
 * @example
 *   setIncrementalOnEmptyFile(db, file);          // at open, first
 *   convertToIncrementalVacuum(db, file, logger); // at open, before migrations
 *   reclaimFreePages(db);                          // then every minute
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { ModuleLogger } from "../core/logger";
import type { SqliteDatabase } from "./sqlite-types";

const INCREMENTAL = 2;
/** Free pages left alone (reused by the next writes): 1 MiB of 4 KiB pages. */
export const RECLAIM_MIN_PAGES = 256;
/** Pages released per call at most (4 MiB of 4 KiB pages: a few ms of work). */
export const RECLAIM_STEP_PAGES = 1024;
const MARGIN_BYTES = 64 * 1024 * 1024;

function freeBytes(dir: string): number {
  const s = fs.statfsSync(dir);
  return s.bavail * s.bsize;
}

function fileBytes(file: string): number {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
}

/** Sets INCREMENTAL on a new, empty file (no bytes, no -wal); call it before `journal_mode = WAL`. */
export function setIncrementalOnEmptyFile(db: SqliteDatabase, file: string): void {
  if (fileBytes(file) === 0 && fileBytes(`${file}-wal`) === 0) db.pragma("auto_vacuum = INCREMENTAL");
}

/** Switches the database to incremental vacuum (see above). Never throws for lack of room or a failed VACUUM: logs and goes on. */
export function convertToIncrementalVacuum(db: SqliteDatabase, file: string, logger: ModuleLogger): void {
  if (db.pragmaValue("auto_vacuum") === INCREMENTAL) return;
  if (!db.prepare("SELECT 1 FROM sqlite_master LIMIT 1").get()) {
    db.pragma("auto_vacuum = INCREMENTAL");
    return;
  }
  const size = fileBytes(file) + fileBytes(`${file}-wal`);
  const needed = size + MARGIN_BYTES;
  const room = Math.min(freeBytes(path.dirname(file)), freeBytes(os.tmpdir()));
  if (room < needed) {
    logger.warn(
      `the plugin database ${file} was not converted to incremental vacuum (free pages are reused but not given back): ` +
        `the conversion copies the file once and needs ${Math.ceil(needed / 1048576)} MB free in its directory and in ${os.tmpdir()}; it is tried again at the next start`,
      { database: file, neededBytes: needed, freeBytes: room },
    );
    return;
  }
  const started = Date.now();
  logger.info("converting the plugin database to incremental vacuum (once; the file is rewritten)", { database: file, bytes: size });
  try {
    db.pragma("auto_vacuum = INCREMENTAL");
    db.exec("VACUUM");
  } catch (e) {
    logger.warn("converting the plugin database to incremental vacuum failed; it is left as it was and tried again at the next start", {
      database: file,
      error: (e as Error).message,
      code: (e as { code?: string }).code,
    });
    return;
  }
  logger.info("plugin database converted to incremental vacuum", {
    database: file,
    bytesBefore: size,
    bytesAfter: fileBytes(file) + fileBytes(`${file}-wal`),
    ms: Date.now() - started,
  });
}

/** Releases free pages beyond RECLAIM_MIN_PAGES (at most RECLAIM_STEP_PAGES); returns how many. */
export function reclaimFreePages(db: SqliteDatabase): number {
  if (db.pragmaValue("auto_vacuum") !== INCREMENTAL) return 0;
  const free = db.pragmaValue("freelist_count") as number;
  if (free <= RECLAIM_MIN_PAGES) return 0;
  const pages = Math.min(free - RECLAIM_MIN_PAGES, RECLAIM_STEP_PAGES);
  db.pragma(`incremental_vacuum(${pages})`);
  return free - (db.pragmaValue("freelist_count") as number);
}
