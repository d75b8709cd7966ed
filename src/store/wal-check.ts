/**
 * A check of SQLite's write-ahead log (`<db>-wal`) before the database is opened.
 *
 * SQLite reads the WAL frame by frame and stops at the first frame whose
 * checksum fails: every transaction committed after a damaged frame is dropped
 * without a word, and the first write after opening overwrites the evidence.
 * This reads the file as SQLite's documented WAL format describes it (a 32-byte
 * header, then frames of a 24-byte header plus one page, each with a running
 * checksum and the header's salts) and reports commit frames of the current
 * generation (same salts) that lie beyond the first bad frame. Frames with other
 * salts are left over from before a checkpoint reset and are rightly ignored;
 * frames after the last commit without a later commit are an unfinished
 * transaction, also rightly ignored.
 *
 * SQLite writes a frame as its 24-byte header, then its page: a crash between the
 * two (or a power loss before both reached the disk) leaves a frame whose header is
 * new and whose page is not, often inside a log SQLite had started over, so the
 * frame is whole in length and fails its checksum. When that frame is a commit
 * frame, its transaction never finished (the call committing it never returned, so
 * nothing was answered for it): a torn tail, SQLite's ordinary crash case, reported
 * as `torn` and not as a lost commit — unless the `-shm` of this log says the log had
 * already reached past it (SQLite writes the wal-index only after a commit's frames),
 * which makes it a finished commit damaged later.
 *
 * Cutting the log at the last good commit is only consistent while the database
 * file holds nothing newer. A checkpoint (checkpointer.ts copies the log every
 * 50 ms) may already have copied later frames into it: then the cut log would lay
 * older pages over newer ones. So the check also reads how far the copying got
 * from the `-shm` file, which a crashed process leaves behind (its wal-index
 * header and checkpoint info, in SQLite's documented layout and the machine's
 * byte order), when it belongs to this log (same salts, both header copies
 * equal). No `-shm`, or one of another log, tells nothing (a lost `-shm` means the
 * machine itself went down): the advice is then the cut, after a copy of both files.
 *
 * @example
 *   const found = checkWal(`${file}-wal`);
 *   if (found.lostCommits > 0) throw new Error(`… truncate -s ${found.validBytes} …`);
 */
import fs from "node:fs";
import os from "node:os";

export interface WalCheck {
  /** Frames in the file (whole ones). */
  frames: number;
  /** Frames SQLite will use: up to and including the last commit before the first bad frame. */
  validFrames: number;
  /** File length that keeps exactly the usable frames (the header plus `validFrames`). */
  validBytes: number;
  /** 1-based number of the first frame that fails its checksum, when one does. */
  firstBadFrame?: number;
  /**
   * Committed transactions SQLite would drop: commits of the current generation after the first
   * bad frame, and the bad frame itself when it is a commit the `-shm` of this log shows finished.
   */
  lostCommits: number;
  /**
   * A torn tail (a bad frame and no committed transaction lost): the write a crash or power loss
   * cut short, which SQLite drops, as after any crash. `frames`: the frames it drops (from the
   * last commit to the end of this generation); `commit`: the bad frame was a commit frame (the
   * transaction was being committed when the write stopped).
   */
  torn?: { frames: number; commit: boolean };
  /** What the `-shm` says a checkpoint copied into the database file, when it belongs to this log. */
  copied?: CopiedFrames;
  /** Commits of the current generation after frame `copied.frames`: what dropping the whole log loses. */
  commitsAfterCopied?: number;
}

export interface CopiedFrames {
  /** Frames whose pages the database file may hold (the larger of the finished and the attempted copy). */
  frames: number;
  /** Frames a finished checkpoint copied (nBackfill): SQLite reads every page from the frames after them, or from the file. */
  backfilled: number;
  /** Frames the log held when the process stopped (the larger of mxFrame and the attempted copy): a rebuilt log must reach it. */
  end: number;
  /**
   * The database file alone is the state at `frames`: the last checkpoint finished and copied
   * every frame of the log (nBackfill = nBackfillAttempted = mxFrame), or the log was started over
   * after such a copy. A finished copy short of mxFrame is not enough: a checkpoint held back by
   * a reader skips every page that also has a later frame, so the file mixes states.
   */
  whole: boolean;
}

const MAGIC_LE = 0x377f0682;
export const MAGIC_BE = 0x377f0683;
export const HEADER = 32;
export const FRAME_HEADER = 24;

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `s`. */
export function checksum(data: Buffer, bigEndian: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s;
  for (let i = 0; i < data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
}

const SHM_VERSION = 3007000;
const SHM_HEADER = 48;
const SHM_MX_FRAME = 16;
const SHM_SALTS = 32;
const SHM_BACKFILL = 96;
const SHM_BACKFILL_ATTEMPTED = 128;

/**
 * The copy progress in `<db>-shm`, if that file belongs to the log whose header is `walHeader`
 * (`frames` long): same salts, or the next generation's salts with no frame yet (SQLite
 * starts a log over only after copying all of it, and a crash came before the new header).
 */
function readCopied(shmFile: string, walHeader: Buffer, frames: number): CopiedFrames | undefined {
  let shm: Buffer;
  try {
    const fd = fs.openSync(shmFile, "r");
    try {
      shm = Buffer.alloc(SHM_BACKFILL_ATTEMPTED + 4);
      if (fs.readSync(fd, shm, 0, shm.length, 0) < shm.length) return undefined;
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return undefined;
  }
  const u32 = (at: number) => (os.endianness() === "LE" ? shm.readUInt32LE(at) : shm.readUInt32BE(at));
  const header = shm.subarray(0, SHM_HEADER);
  if (!header.equals(shm.subarray(SHM_HEADER, 2 * SHM_HEADER)) || u32(0) !== SHM_VERSION || shm[12] !== 1) return undefined;
  const mxFrame = u32(SHM_MX_FRAME);
  const backfill = u32(SHM_BACKFILL);
  const attempted = u32(SHM_BACKFILL_ATTEMPTED);
  if (shm.subarray(SHM_SALTS, SHM_SALTS + 8).equals(walHeader.subarray(16, 24))) {
    return {
      frames: Math.max(backfill, attempted),
      backfilled: backfill,
      end: Math.max(mxFrame, attempted),
      whole: backfill === attempted && backfill === mxFrame,
    };
  }
  // Started over: the new first salt is the old one plus 1 (both big-endian, as in the log's header).
  const startedOver = shm.readUInt32BE(SHM_SALTS) === (walHeader.readUInt32BE(16) + 1) >>> 0 && mxFrame === 0 && backfill === 0;
  return startedOver ? { frames, backfilled: frames, end: frames, whole: true } : undefined;
}

/** Checks the WAL file; a missing, empty or header-only file is clean. */
export function checkWal(walFile: string): WalCheck {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(walFile);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { frames: 0, validFrames: 0, validBytes: 0, lostCommits: 0 };
    throw e;
  }
  const clean = { frames: 0, validFrames: 0, validBytes: buf.length, lostCommits: 0 };
  if (buf.length < HEADER) return clean;
  const magic = buf.readUInt32BE(0);
  const pageSize = buf.readUInt32BE(8);
  const frameSize = FRAME_HEADER + pageSize;
  const frames = Math.floor((buf.length - HEADER) / frameSize);
  if ((magic !== MAGIC_LE && magic !== MAGIC_BE) || pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    // Not a WAL header SQLite accepts: it ignores the whole file. Nothing to tell apart without salts.
    return { ...clean, frames };
  }
  const bigEndian = magic === MAGIC_BE;
  const salt1 = buf.readUInt32BE(16);
  const salt2 = buf.readUInt32BE(20);
  let sum = checksum(buf.subarray(0, 24), bigEndian, [0, 0]);
  const headerOk = sum[0] === buf.readUInt32BE(24) && sum[1] === buf.readUInt32BE(28);

  let validFrames = 0;
  let bad: number | undefined = headerOk ? undefined : 0;
  for (let i = 0; bad === undefined && i < frames; i++) {
    const off = HEADER + i * frameSize;
    if (buf.readUInt32BE(off + 8) !== salt1 || buf.readUInt32BE(off + 12) !== salt2) break; // end of this generation
    sum = checksum(buf.subarray(off + FRAME_HEADER, off + frameSize), bigEndian, checksum(buf.subarray(off, off + 8), bigEndian, sum));
    if (sum[0] !== buf.readUInt32BE(off + 16) || sum[1] !== buf.readUInt32BE(off + 20)) {
      bad = i;
      break;
    }
    if (buf.readUInt32BE(off + 4) !== 0) validFrames = i + 1;
  }
  const current = (i: number) => {
    const off = HEADER + i * frameSize;
    return buf.readUInt32BE(off + 8) === salt1 && buf.readUInt32BE(off + 12) === salt2;
  };
  const isCommit = (i: number) => current(i) && buf.readUInt32BE(HEADER + i * frameSize + 4) !== 0;
  /** Commit frames of the current generation from frame index `from` on. */
  const commitsFrom = (from: number) => {
    let n = 0;
    for (let i = from; i < frames; i++) if (isCommit(i)) n++;
    return n;
  };
  const validBytes = headerOk ? HEADER + validFrames * frameSize : 0;
  if (bad === undefined) return { frames, validFrames, validBytes, lostCommits: 0 };
  const copied = readCopied(walFile.replace(/-wal$/, "-shm"), buf, frames);
  // The bad frame itself is a commit that never finished, unless the wal-index of this log (written
  // only once a commit's frames are all in the log) says the log had reached past it.
  const lostCommits = commitsFrom(bad + 1) + (bad < (copied?.end ?? 0) && isCommit(bad) ? 1 : 0);
  const generationEnd = (() => {
    let end = bad + 1;
    while (end < frames && current(end)) end++;
    return end;
  })();
  return {
    frames,
    validFrames,
    validBytes,
    firstBadFrame: bad + 1,
    lostCommits,
    ...(lostCommits === 0 ? { torn: { frames: generationEnd - validFrames, commit: isCommit(bad) } } : {}),
    ...(copied && lostCommits > 0 ? { copied, commitsAfterCopied: commitsFrom(copied.frames) } : {}),
  };
}
