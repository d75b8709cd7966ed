/**
 * Atomic file replacement (the demo token files, plugins.json, the mail config and
 * checkpoints): write a temp file beside the target, fsync it, rename it over the
 * target, fsync the directory. A crash leaves either the old or the new file; a
 * failed write (a full disk) leaves the old one and removes its temp file.
 */
import fs from "node:fs";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { mkdirPrivate } from "./private-fs";

/** Writes `data` to `file` atomically with the given mode (default 0600). */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = path.dirname(file);
  mkdirPrivate(dir);
  const tmp = path.join(dir, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`);
  const fd = fs.openSync(tmp, "w", mode);
  try {
    try {
      fs.writeFileSync(fd, data);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, file);
  } catch (e) {
    // A full disk or an I/O error: the target stays as it was, and no temp file is left to pile up at each retry.
    fs.rmSync(tmp, { force: true });
    throw e;
  }
  try {
    const dfd = fs.openSync(dir, "r");
    try {
      fs.fsyncSync(dfd);
    } finally {
      fs.closeSync(dfd);
    }
  } catch {
    // Directory fsync is not supported everywhere (e.g. some network filesystems); the rename stands.
  }
}
