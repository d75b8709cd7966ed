/**
 * Whole-line appends to the gateway's line files (the journal, session logs).
 *
 * An append is one line or nothing: the bytes are written (looping over short
 * writes), and when a write fails part-way — a full disk, an I/O error — the file
 * is cut back to its length before the append and a `StorageWriteError` carrying
 * the OS cause (`ENOSPC`, `EIO` …) is thrown. So a failed append never leaves a
 * torn line for the next append to glue onto. If even the cut fails, the file
 * remembers the length it must return to and cuts it before the next append
 * (which fails while that is impossible). Nothing broken is cached: a descriptor
 * that saw an error is closed and the next append opens the file again, so
 * appends work again as soon as space returns.
 *
 * A torn tail left by a crash mid-write (or by a power cut) is dropped at start
 * by `dropTornTail`.
 *
 * Size-based rotation (`rotate`, the journal): when a write would take a non-empty
 * file past `maxBytes`, the file is first renamed to `rotate.to` (replacing the one
 * there) and the write starts a new file, so at most two files of about `maxBytes`
 * each are kept (a single write larger than `maxBytes` still goes whole into a new
 * file). A write is never split across the two files, and because the rotation
 * happens inside the write, every holder of this LineFile (such as a line staged
 * in the group commit) writes to the new file: nothing is ever written to the
 * renamed one. An owed cut is made before the size is read, so an undone line
 * never ends up in the renamed file.
 * - The rename is atomic: a crash after it and before the new file exists leaves
 *   the file missing, which the next open (or the next start) creates.
 * - The rename fails (e.g. EACCES): the write goes to the current file (past
 *   `maxBytes`), `rotate.onError` hears of it once until a rotation succeeds, and
 *   every later write tries again. Nothing is lost or damaged.
 * - The new file cannot be created (a full disk has no room for a directory entry
 *   or inode, EMFILE …): the old lines are whole under `rotate.to`; the write
 *   throws StorageWriteError (nothing written, like any failed append) and the
 *   next write creates the file when it can.
 * With `sync` the directory is `fsync`ed after the rotation, so the rename and the
 * new file survive a power cut before the write returns; if that fails the write
 * throws and the directory sync is made again before the next write.
 *
 * @example
 *   const log = openLineFile("/state/journal.jsonl", { name: "journal.jsonl", keepOpen: true });
 *   const before = log.append(JSON.stringify({ type: "heartbeat" })); // throws StorageWriteError on ENOSPC
 *   log.truncate(before); // undo it (e.g. when a write belonging to the same change failed)
 */
import fs from "node:fs";
import path from "node:path";
import { PRIVATE_FILE_MODE } from "../../host-contract/private-fs";

/** A write to the state dir that did not happen. `code` is the OS cause (ENOSPC, EIO, …). */
export class StorageWriteError extends Error {
  readonly code: string;
  /** Absolute path of the file. */
  readonly file: string;

  /** `name` is how the message names the file (relative to the state dir: no absolute path in messages). */
  constructor(file: string, name: string, what: string, cause: unknown) {
    const code = errnoCode(cause) ?? "EIO";
    const detail = cause instanceof Error ? cause.message : String(cause);
    super(`cannot ${what} ${name}: ${detail.startsWith(code) ? detail : `${code}: ${detail}`}`, { cause });
    this.name = "StorageWriteError";
    this.code = code;
    this.file = file;
  }
}

function errnoCode(e: unknown): string | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

export interface LineFile {
  readonly file: string;
  /**
   * Appends `line` plus a newline as one whole line; returns the file's length
   * before it (for `truncate`). Throws StorageWriteError, leaving the file as it was.
   */
  append(line: string): number;
  /** Appends several whole lines with one write; same contract as `append` (all of them or none). */
  appendMany(lines: readonly string[]): number;
  /** Cuts the file back to `length` (undo of an append). Throws StorageWriteError; the cut is then retried before the next append. */
  truncate(length: number): void;
  close(): void;
}

export interface LineFileOptions {
  /** How errors name the file (default: the path). */
  name?: string;
  /** Keep the descriptor open between appends (hot files such as the journal). Default false. */
  keepOpen?: boolean;
  /** `fdatasync` after every write ("os" durability: the lines survive a power loss once the append returns). Default false. */
  sync?: boolean;
  /** Size-based rotation (see above): keep at most this file and one previous file `to`. */
  rotate?: LineFileRotation;
}

export interface LineFileRotation {
  /** A write that would take the (non-empty) file past this many bytes first renames it to `to`. */
  maxBytes: number;
  /** Absolute path of the previous file (replaced at each rotation). */
  to: string;
  /** Told when a rename fails (once, until a rotation succeeds again); the write then goes to the current file. */
  onError?: (e: StorageWriteError) => void;
}

export function openLineFile(file: string, opts: LineFileOptions = {}): LineFile {
  const name = opts.name ?? file;
  let fd: number | undefined;
  /** Length the file must be cut back to before anything else is appended (a failed undo). */
  let owedCut: number | undefined;
  /** The directory must be `fsync`ed before the next write (a rotation whose directory sync failed). */
  let owedDirSync = false;
  /** A rename failed and was reported; reset when a rotation succeeds. */
  let rotateFailing = false;

  const release = () => {
    if (fd === undefined) return;
    try {
      fs.closeSync(fd);
    } catch {
      // The descriptor is gone either way.
    }
    fd = undefined;
  };
  const acquire = (): number => (fd ??= fs.openSync(file, "a", PRIVATE_FILE_MODE));

  /** Cuts the file back to `length` (never extends it: the file may have been emptied meanwhile). */
  const cut = (handle: number, length: number): void => {
    if (fs.fstatSync(handle).size > length) fs.ftruncateSync(handle, length);
    owedCut = undefined;
  };

  return {
    file,
    append(line) {
      return write(Buffer.from(`${line}\n`, "utf8"));
    },
    appendMany(lines) {
      return write(Buffer.from(`${lines.join("\n")}\n`, "utf8"));
    },
    truncate(length) {
      try {
        cut(acquire(), length);
      } catch (e) {
        owedCut = length;
        release();
        throw new StorageWriteError(file, name, "cut back", e);
      } finally {
        if (!opts.keepOpen) release();
      }
    },
    close: release,
  };

  /** Writes `data` whole at the end of the file (looping over short writes); returns the length before it. */
  function write(data: Buffer): number {
    let handle: number;
    let before: number;
    try {
      handle = acquire();
      if (owedCut !== undefined) cut(handle, owedCut);
      before = fs.fstatSync(handle).size;
      if (owedDirSync) syncDir();
    } catch (e) {
      release();
      throw new StorageWriteError(file, name, "append to", e);
    }
    if (opts.rotate && before > 0 && before + data.length > opts.rotate.maxBytes && rotate(opts.rotate)) {
      handle = startNew();
      before = 0;
    }
    let written = 0;
    try {
      while (written < data.length) {
        const n = fs.writeSync(handle, data, written, data.length - written);
        if (n <= 0) throw Object.assign(new Error("EIO: the write stored no bytes"), { code: "EIO" });
        written += n;
      }
      // "os" durability: on the device before the append returns (a failed sync cuts the lines back like a failed write).
      if (opts.sync) fs.fdatasyncSync(handle);
    } catch (e) {
      if (written > 0) {
        try {
          cut(handle, before);
        } catch {
          owedCut = before;
        }
      }
      release();
      throw new StorageWriteError(file, name, "append to", e);
    }
    if (!opts.keepOpen) release();
    return before;
  }

  /** Renames the file to `r.to`; false (reported once) when the rename fails and the write should go to the current file. */
  function rotate(r: LineFileRotation): boolean {
    try {
      fs.renameSync(file, r.to);
    } catch (e) {
      if (!rotateFailing) r.onError?.(new StorageWriteError(file, name, "rotate", e));
      rotateFailing = true;
      return false;
    }
    rotateFailing = false;
    release();
    owedDirSync = opts.sync === true;
    return true;
  }

  /** Opens the new file after a rotation (and syncs the directory with `sync`); throws StorageWriteError, nothing written. */
  function startNew(): number {
    try {
      const handle = acquire();
      if (owedDirSync) syncDir();
      return handle;
    } catch (e) {
      release();
      throw new StorageWriteError(file, name, "start a new", e);
    }
  }

  function syncDir(): void {
    syncPath(path.dirname(file));
    owedDirSync = false;
  }
}

/** `fsync` of a file or directory by path (a directory: its entries, e.g. after a rename). */
export function syncPath(target: string): void {
  const fd = fs.openSync(target, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Bytes read per step when looking for the last newline from the end. */
const TAIL_CHUNK = 64 * 1024;

/**
 * Cuts a line file after its last newline: a last line without one is a write
 * torn by a crash (or a power cut). Returns how many bytes were dropped (0 when
 * the file ends cleanly or does not exist). Reads only the tail of the file.
 */
export function dropTornTail(file: string): number {
  let fd: number;
  try {
    fd = fs.openSync(file, "r+");
  } catch (e) {
    if (errnoCode(e) === "ENOENT") return 0;
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(TAIL_CHUNK, size));
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = fs.readSync(fd, buf, 0, end - start, start);
      const nl = buf.subarray(0, n).lastIndexOf(0x0a);
      if (nl >= 0) {
        const keep = start + nl + 1;
        if (keep < size) fs.ftruncateSync(fd, keep);
        return size - keep;
      }
      end = start;
    }
    if (size > 0) fs.ftruncateSync(fd, 0);
    return size;
  } finally {
    fs.closeSync(fd);
  }
}
