/**
 * A simulated full disk for unit tests of the gateway's files: `fs.writeSync`
 * (and `fs.writeFileSync`) store at most `budget` more bytes — the write that
 * crosses the budget is short, like a real write into the last free block — and
 * every later write fails with ENOSPC until `free()` is called. The real
 * small-tmpfs version of this is test/crash/disk-full.test.ts.
 */
import fs from "node:fs";

export interface FullDisk {
  /** Space returns: writes succeed again. */
  free(): void;
  /** Stops simulating (restores fs). */
  restore(): void;
}

const enospc = () => Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: -28, syscall: "write" });

export function fullDiskAfter(budget: number): FullDisk {
  let left = budget;
  let full = true;
  const writeSync = fs.writeSync.bind(fs) as (...a: unknown[]) => number;
  const writeFileSync = fs.writeFileSync.bind(fs);
  const spyWrite = jest.spyOn(fs, "writeSync").mockImplementation(((fd: number, data: Buffer | string, offset?: number, length?: number) => {
    const buf = typeof data === "string" ? Buffer.from(data) : data.subarray(offset ?? 0, (offset ?? 0) + (length ?? data.length - (offset ?? 0)));
    if (!full) return writeSync(fd, buf, 0, buf.length);
    if (left <= 0) throw enospc();
    const n = Math.min(left, buf.length);
    left -= n;
    return writeSync(fd, buf, 0, n);
  }) as typeof fs.writeSync);
  const spyWriteFile = jest.spyOn(fs, "writeFileSync").mockImplementation(((
    file: fs.PathOrFileDescriptor,
    data: string | NodeJS.ArrayBufferView,
    opts?: fs.WriteFileOptions,
  ) => {
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    if (full && size > left) {
      // Like a real full disk: the file is created and partly written, then the write fails.
      writeFileSync(file, typeof data === "string" ? data.slice(0, Math.max(0, left)) : Buffer.from(data.buffer).subarray(0, Math.max(0, left)), opts);
      left = 0;
      throw enospc();
    }
    if (full) left -= size;
    return writeFileSync(file, data, opts);
  }) as typeof fs.writeFileSync);
  return {
    free: () => void (full = false),
    restore() {
      spyWrite.mockRestore();
      spyWriteFile.mockRestore();
    },
  };
}
