/**
 * writeFileAtomic (the mail watcher's checkpoints, the mail setup's config file): the
 * old file or the new one, and nothing else left beside them.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { writeFileAtomic } from "../../src/host-contract/atomic-write";
import { fullDiskAfter } from "../gateway/storage/full-disk";

describe("writeFileAtomic", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mail-atomic-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("regression: a write that the full disk cut short left its temp file beside the target at every try; now the old file stays alone", () => {
    const file = path.join(dir, "checkpoint.json");
    writeFileAtomic(file, '{"lastUid":4}\n');
    const disk = fullDiskAfter(5);
    try {
      for (let i = 0; i < 3; i++)
        expect(() => writeFileAtomic(file, '{"lastUid":5,"pending":"a batch"}\n')).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    } finally {
      disk.restore();
    }
    expect(fs.readdirSync(dir)).toEqual(["checkpoint.json"]);
    expect(fs.readFileSync(file, "utf8")).toBe('{"lastUid":4}\n');
    writeFileAtomic(file, '{"lastUid":5}\n');
    expect(fs.readFileSync(file, "utf8")).toBe('{"lastUid":5}\n');
  });
});
