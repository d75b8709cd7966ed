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
 * @example
 *   const found = checkWal(`${file}-wal`);
 *   if (found.lostCommits > 0) throw new Error(`… truncate -s ${found.validBytes} …`);
 */
import fs from "node:fs";

export interface WalCheck {
  /** Frames in the file (whole ones). */
  frames: number;
  /** Frames SQLite will use: up to and including the last commit before the first bad frame. */
  validFrames: number;
  /** File length that keeps exactly the usable frames (the header plus `validFrames`). */
  validBytes: number;
  /** 1-based number of the first frame that fails its checksum, when one does. */
  firstBadFrame?: number;
  /** Commits of the current generation after the first bad frame: transactions SQLite would drop. */
  lostCommits: number;
}

const MAGIC_LE = 0x377f0682;
const MAGIC_BE = 0x377f0683;
const HEADER = 32;
const FRAME_HEADER = 24;

/** SQLite's WAL checksum over `data` (a multiple of 8 bytes), continuing from `s`. */
function checksum(data: Buffer, bigEndian: boolean, s: [number, number]): [number, number] {
  let [s0, s1] = s;
  for (let i = 0; i < data.length; i += 8) {
    const x0 = bigEndian ? data.readUInt32BE(i) : data.readUInt32LE(i);
    const x1 = bigEndian ? data.readUInt32BE(i + 4) : data.readUInt32LE(i + 4);
    s0 = (s0 + x0 + s1) >>> 0;
    s1 = (s1 + x1 + s0) >>> 0;
  }
  return [s0, s1];
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
  let lostCommits = 0;
  if (bad !== undefined) {
    for (let i = bad; i < frames; i++) {
      const off = HEADER + i * frameSize;
      const current = buf.readUInt32BE(off + 8) === salt1 && buf.readUInt32BE(off + 12) === salt2;
      if (current && buf.readUInt32BE(off + 4) !== 0) lostCommits++;
    }
  }
  return {
    frames,
    validFrames,
    validBytes: headerOk ? HEADER + validFrames * frameSize : 0,
    ...(bad !== undefined ? { firstBadFrame: bad + 1 } : {}),
    lostCommits,
  };
}
