/**
 * The write-ahead log's check at start (SPEC §7 "Damaged state at start"), before the
 * plugin database is opened: what wal-check.ts found, acted on. A torn tail goes on with
 * a warning; damage inside frames a checkpoint had copied is rebuilt around
 * (wal-replay.ts); any other loss of a committed transaction fails the start with one
 * line naming the file and the command that leaves a consistent database.
 *
 * @example
 *   refuseDamagedWal(file, logger); // throws, or returns once the log is safe to open
 */
import fs from "node:fs";
import type { ModuleLogger } from "../core/logger";
import { checkWal } from "./wal-check";
import { logAfter } from "./wal-replay";
import { writeFileAtomic } from "../host-contract/atomic-write";

/**
 * Refuses a write-ahead log whose committed transactions SQLite would drop, unless the
 * damage lies in frames a checkpoint had already copied: then the log is rebuilt from
 * the frames after them (wal-replay.ts), keeping every transaction, with a warning and
 * the damaged log kept beside it. A torn tail (a write a crash cut short, no committed
 * transaction after it) is SQLite's ordinary crash case: the start goes on, with a
 * warning saying what SQLite drops. Call before the database is opened.
 */
export function refuseDamagedWal(file: string, logger: ModuleLogger): void {
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
  if (found.torn) {
    logger.warn(
      `the plugin database's write-ahead log ended in a write that never finished (frame ${found.firstBadFrame} of ${found.frames} fails its checksum${found.torn.commit ? ": the commit frame of a transaction being committed when the process or the machine stopped" : ""}, and no committed transaction follows it); ` +
        `SQLite drops that unfinished transaction (${found.torn.frames} frame(s)) as after any crash and keeps every committed one (the log's first ${found.validFrames} frame(s))`,
      { wal },
    );
    return;
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
