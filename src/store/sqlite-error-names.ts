/**
 * SQLite result codes by name (sqlite.org/rescode.html), for the node:sqlite driver:
 * node:sqlite reports the number (`errcode`), the store and storage-fault.ts speak
 * the names better-sqlite3 uses (`SQLITE_FULL`, `SQLITE_IOERR_WRITE` …).
 *
 * @example
 *   sqliteErrorName(13);   // "SQLITE_FULL"
 *   sqliteErrorName(778);  // "SQLITE_IOERR_WRITE" (10 | 3 << 8)
 */
const PRIMARY = [
  "OK",
  "ERROR",
  "INTERNAL",
  "PERM",
  "ABORT",
  "BUSY",
  "LOCKED",
  "NOMEM",
  "READONLY",
  "INTERRUPT",
  "IOERR",
  "CORRUPT",
  "NOTFOUND",
  "FULL",
  "CANTOPEN",
  "PROTOCOL",
  "EMPTY",
  "SCHEMA",
  "TOOBIG",
  "CONSTRAINT",
  "MISMATCH",
  "MISUSE",
  "NOLFS",
  "AUTH",
  "FORMAT",
  "RANGE",
  "NOTADB",
  "NOTICE",
  "WARNING",
];

/** Extended codes: primary code → names of (code >> 8) = 1, 2, … */
const EXTENDED: Record<number, string[]> = {
  1: ["MISSING_COLLSEQ", "RETRY", "SNAPSHOT", "RESERVESIZE", "KEY", "UNABLE"],
  4: ["ROLLBACK"],
  5: ["RECOVERY", "SNAPSHOT", "TIMEOUT"],
  6: ["SHAREDCACHE", "VTAB"],
  8: ["RECOVERY", "CANTLOCK", "ROLLBACK", "DBMOVED", "CANTINIT", "DIRECTORY"],
  10: [
    "READ",
    "SHORT_READ",
    "WRITE",
    "FSYNC",
    "DIR_FSYNC",
    "TRUNCATE",
    "FSTAT",
    "UNLOCK",
    "RDLOCK",
    "DELETE",
    "BLOCKED",
    "NOMEM",
    "ACCESS",
    "CHECKRESERVEDLOCK",
    "LOCK",
    "CLOSE",
    "DIR_CLOSE",
    "SHMOPEN",
    "SHMSIZE",
    "SHMLOCK",
    "SHMMAP",
    "SEEK",
    "DELETE_NOENT",
    "MMAP",
    "GETTEMPPATH",
    "CONVPATH",
    "VNODE",
    "AUTH",
    "BEGIN_ATOMIC",
    "COMMIT_ATOMIC",
    "ROLLBACK_ATOMIC",
    "DATA",
    "CORRUPTFS",
    "IN_PAGE",
  ],
  11: ["VTAB", "SEQUENCE", "INDEX"],
  14: ["NOTEMPDIR", "ISDIR", "FULLPATH", "CONVPATH", "DIRTYWAL", "SYMLINK"],
  19: ["CHECK", "COMMITHOOK", "FOREIGNKEY", "FUNCTION", "NOTNULL", "PRIMARYKEY", "TRIGGER", "UNIQUE", "VTAB", "ROWID", "PINNED", "DATATYPE"],
};

/** The name of a (primary or extended) result code; an unknown extension gets its primary code's name. */
export function sqliteErrorName(code: number): string {
  const primary = code & 0xff;
  const base = PRIMARY[primary] ?? (primary === 100 ? "ROW" : primary === 101 ? "DONE" : `UNKNOWN_${primary}`);
  const ext = EXTENDED[primary]?.[(code >> 8) - 1];
  return `SQLITE_${base}${ext ? `_${ext}` : ""}`;
}
