/**
 * A damaged write-ahead log rebuilt without losing a transaction, when the damage lies
 * in frames a checkpoint had already copied into the database file.
 *
 * SQLite's own invariant after a finished checkpoint of `n` frames (nBackfill): every
 * page is read from the latest of the frames after the first `n`, or from the database
 * file. Pages the checkpoint skipped (held back by a reader) or copied only in part (a
 * later checkpoint cut short) all have such a later frame. So the file plus the frames
 * after `n` are the state at the log's last commit, whatever the first `n` frames hold:
 * a log of just those frames, with the checksum chain written afresh from the header,
 * loses nothing. The frames kept must pass their own checksums, chained from the sum
 * stored in frame `n` (or the header); if one fails before the last commit, there is
 * no such log, and the caller's advice stands (wal-check.ts, database.ts).
 *
 * @example
 *   const log = logAfter(fs.readFileSync(wal), found.copied.backfilled, found.copied.end);
 *   if (log) replaceLog(wal, log.bytes);
 */
import { checksum, FRAME_HEADER, HEADER, MAGIC_BE } from "./wal-check";

export interface RebuiltLog {
  /** The new log: the header, then the kept frames with a fresh checksum chain. */
  bytes: Buffer;
  /** Frames kept (those after the copied ones, through the last commit). */
  frames: number;
  /** Commits among them. */
  commits: number;
}

/**
 * The log of frames `from` to `end` (those after the ones a checkpoint finished copying,
 * through the last the crashed process had: mxFrame, or a copy it attempted), or
 * undefined when one of them is damaged or missing (a frame with other salts, a
 * damaged last commit): then some of those commits, possibly copied in part, would be
 * gone, and only the caller's advice is honest.
 */
export function logAfter(buf: Buffer, from: number, end: number): RebuiltLog | undefined {
  if (buf.length < HEADER) return undefined;
  const bigEndian = buf.readUInt32BE(0) === MAGIC_BE;
  const frameSize = FRAME_HEADER + buf.readUInt32BE(8);
  const frames = Math.floor((buf.length - HEADER) / frameSize);
  const header = checksum(buf.subarray(0, 24), bigEndian, [0, 0]);
  if (header[0] !== buf.readUInt32BE(24) || header[1] !== buf.readUInt32BE(28) || from > frames) return undefined;
  const salts = buf.subarray(16, 24);
  const frameAt = (i: number) => buf.subarray(HEADER + i * frameSize, HEADER + (i + 1) * frameSize);
  // The stored sum before frame `from` starts the chain the kept frames must continue.
  const before = from === 0 ? buf.subarray(24, 32) : frameAt(from - 1).subarray(16, 24);
  let sum: [number, number] = [before.readUInt32BE(0), before.readUInt32BE(4)];
  let lastCommit = from - 1;
  let commits = 0;
  let damaged = false;
  for (let i = from; i < frames; i++) {
    const frame = frameAt(i);
    if (!frame.subarray(8, 16).equals(salts)) break; // the end of this generation
    const isCommit = frame.readUInt32BE(4) !== 0;
    if (damaged) {
      if (isCommit) return undefined; // a commit after a damaged frame: it cannot be kept
      continue;
    }
    sum = checksum(frame.subarray(FRAME_HEADER), bigEndian, checksum(frame.subarray(0, 8), bigEndian, sum));
    if (sum[0] !== frame.readUInt32BE(16) || sum[1] !== frame.readUInt32BE(20)) {
      damaged = true;
      continue;
    }
    if (isCommit) {
      lastCommit = i;
      commits++;
    }
  }
  const kept = lastCommit - from + 1;
  if (from + kept < end) return undefined;
  const bytes = Buffer.alloc(HEADER + kept * frameSize);
  buf.copy(bytes, 0, 0, HEADER);
  let chain = header;
  for (let k = 0; k < kept; k++) {
    const out = bytes.subarray(HEADER + k * frameSize, HEADER + (k + 1) * frameSize);
    frameAt(from + k).copy(out);
    chain = checksum(out.subarray(FRAME_HEADER), bigEndian, checksum(out.subarray(0, 8), bigEndian, chain));
    out.writeUInt32BE(chain[0], 16);
    out.writeUInt32BE(chain[1], 20);
  }
  return { bytes, frames: kept, commits };
}
