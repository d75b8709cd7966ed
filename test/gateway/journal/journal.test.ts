import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createJournal } from "../../../src/gateway/journal/journal";
import { fullDiskAfter } from "../storage/full-disk";

const tmpFile = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "gw-journal-")), "journal.jsonl");

describe("journal: storage faults and damaged state", () => {
  it("an append on a full disk throws ENOSPC and leaves no part of the line; appends work again when space returns", () => {
    const file = tmpFile();
    const j = createJournal({ file, now: () => new Date("2026-02-03T04:05:06Z") });
    j.append({ type: "heartbeat", reason: "a", pending: 0 });
    const disk = fullDiskAfter(20);
    try {
      expect(() => j.append({ type: "system_event", sessionKey: "main", text: "does not fit" })).toThrow(
        expect.objectContaining({
          name: "StorageWriteError",
          code: "ENOSPC",
          message: "cannot append to journal.jsonl: ENOSPC: no space left on device, write",
        }),
      );
      disk.free();
      j.append({ type: "heartbeat", reason: "b", pending: 0 });
    } finally {
      disk.restore();
      j.close();
    }
    expect(
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { reason: string }).reason),
    ).toEqual(["a", "b"]);
  });

  it("drops a torn last line at creation with a warning naming the file, so the next line starts clean", () => {
    const file = tmpFile();
    fs.writeFileSync(file, '{"ts":"t","type":"heartbeat","reason":"a","pending":0}\n{"ts":"t","type":"sys');
    const warnings: string[] = [];
    const j = createJournal({ file, now: () => new Date("2026-02-03T04:05:06Z"), logger: { warn: (m) => void warnings.push(m) } });
    j.append({ type: "heartbeat", reason: "b", pending: 0 });
    j.close();
    expect(warnings).toEqual([`journal ${file} ended in a torn line (a write cut short by a crash); dropped its 21 bytes`]);
    expect(
      fs
        .readFileSync(file, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { reason: string }).reason),
    ).toEqual(["a", "b"]);
  });

  it("regression: a journal that cannot be opened (a directory in its place) failed the start with a bare EISDIR; now the error names the file and what to do", () => {
    const file = tmpFile();
    fs.mkdirSync(file);
    expect(() => createJournal({ file })).toThrow(
      `the journal ${file} cannot be opened for writing (EISDIR: illegal operation on a directory, open '${file}'). Make it a writable file, or move it aside to start a new journal (the old one is only a record: no accepted work is lost).`,
    );
  });
});
