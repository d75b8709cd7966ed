/** openLineFile's size-based rotation (the journal's bound) against undo: cut-backs of the group commit and owed cuts never reach the renamed file. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openLineFile } from "../../../src/gateway/storage/line-file";
import { createGroupCommit } from "../../../src/gateway/storage/group-commit";
import { fullDiskAfter, type FullDisk } from "./full-disk";

let dir: string;
let disk: FullDisk | undefined;
beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-rotate-"))));
afterEach(() => {
  disk?.restore();
  disk = undefined;
  jest.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});
const read = (name: string) => (fs.existsSync(path.join(dir, name)) ? fs.readFileSync(path.join(dir, name), "utf8") : undefined);
/** A rotating file of at most 20 bytes: "line-N\n" is 7 bytes, so two fit and the third rotates. */
const rotating = () =>
  openLineFile(path.join(dir, "log.jsonl"), { name: "log.jsonl", keepOpen: true, rotate: { maxBytes: 20, to: path.join(dir, "log.1.jsonl") } });

describe("openLineFile: rotation and undo", () => {
  it("a batch that rotated and then failed in another file is cut back in the new file; the renamed file keeps its lines whole", async () => {
    const log = rotating();
    const other = openLineFile(path.join(dir, "other.jsonl"));
    log.append("line-1");
    log.append("line-2");
    const commit = createGroupCommit();
    const change = commit.stage([
      [log, "line-3"],
      [other, "other-1"],
    ]);
    disk = fullDiskAfter("line-3\n".length);
    commit.flush();
    await expect(change).rejects.toMatchObject({ name: "StorageWriteError", code: "ENOSPC" });
    disk.free();
    expect([read("log.1.jsonl"), read("log.jsonl"), read("other.jsonl")]).toEqual(["line-1\nline-2\n", "", ""]);
    log.append("line-4");
    expect([read("log.1.jsonl"), read("log.jsonl")]).toEqual(["line-1\nline-2\n", "line-4\n"]);
  });

  it("an owed cut is made before the size decides on a rotation, so the undone bytes never reach the renamed file", () => {
    const log = rotating();
    log.append("line-1");
    log.append("line-2");
    disk = fullDiskAfter(1);
    jest.spyOn(fs, "ftruncateSync").mockImplementationOnce(() => {
      throw Object.assign(new Error("EIO: i/o error, ftruncate"), { code: "EIO" });
    });
    // "ab\n" fits the bound (17 bytes), is torn after "a" and its cut fails: the cut is owed.
    expect(() => log.append("ab")).toThrow(expect.objectContaining({ code: "ENOSPC" }));
    expect(read("log.jsonl")).toBe("line-1\nline-2\na");
    disk.free();
    jest.restoreAllMocks();
    log.append("line-3");
    expect([read("log.1.jsonl"), read("log.jsonl")]).toEqual(["line-1\nline-2\n", "line-3\n"]);
  });

  it("a single write larger than maxBytes goes whole into a new file", () => {
    const log = rotating();
    log.append("line-1");
    log.append("x".repeat(50));
    log.append("line-2");
    expect([read("log.1.jsonl"), read("log.jsonl")]).toEqual([`${"x".repeat(50)}\n`, "line-2\n"]);
  });
});
