/**
 * The gateway's group commit: a turn's staged lines are written with one write per
 * file and each stager's promise settles only then; a batch that cannot be stored
 * is stored not at all (files cut back, in-memory changes undone, every promise
 * rejected); synchronous appends write what is staged first, keeping file order.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createGroupCommit } from "../../../src/gateway/storage/group-commit";
import { openLineFile } from "../../../src/gateway/storage/line-file";
import { createSessionStore } from "../../../src/gateway/sessions/session-store";
import { createJournal } from "../../../src/gateway/journal/journal";
import { fullDiskAfter, type FullDisk } from "./full-disk";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gw-group-"));
const read = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "");

describe("group commit", () => {
  let disk: FullDisk | undefined;
  afterEach(() => {
    disk?.restore();
    disk = undefined;
  });

  it("writes a turn's lines with one write per file and resolves each change only once they are stored", async () => {
    const dir = tmp();
    const a = openLineFile(path.join(dir, "a.jsonl"));
    const b = openLineFile(path.join(dir, "b.jsonl"));
    const commit = createGroupCommit();
    const writes = jest.spyOn(fs, "writeSync");
    const stored: string[] = [];
    const first = commit
      .stage([
        [a, "a1"],
        [b, "b1"],
      ])
      .then(() => stored.push("first"));
    const second = commit.stage([[a, "a2"]]).then(() => stored.push("second"));
    expect([read(a.file), read(b.file), commit.staged]).toEqual(["", "", 3]);
    await Promise.resolve();
    expect(stored).toEqual([]);
    await Promise.all([first, second]);
    expect(writes).toHaveBeenCalledTimes(2);
    writes.mockRestore();
    expect([read(a.file), read(b.file), stored, commit.staged]).toEqual(["a1\na2\n", "b1\n", ["first", "second"], 0]);
  });

  it("stores a failed batch not at all: the file already written is cut back, every change is undone newest first, every promise rejects with the cause", async () => {
    const dir = tmp();
    const a = openLineFile(path.join(dir, "a.jsonl"));
    const b = openLineFile(path.join(dir, "b.jsonl"));
    a.append("before");
    const commit = createGroupCommit();
    const undone: string[] = [];
    const one = commit.stage(
      [
        [a, "a1"],
        [b, "b1"],
      ],
      () => undone.push("one"),
    );
    const two = commit.stage(
      [
        [a, "a2"],
        [b, "b2"],
      ],
      () => undone.push("two"),
    );
    disk = fullDiskAfter("a1\na2\n".length + 2); // a's lines fit, b's do not
    commit.flush();
    await expect(one).rejects.toMatchObject({ name: "StorageWriteError", code: "ENOSPC" });
    await expect(two).rejects.toMatchObject({ code: "ENOSPC" });
    disk.free();
    expect([read(a.file), read(b.file), undone]).toEqual(["before\n", "", ["two", "one"]]);
  });

  it("a synchronous journal append writes the staged lines first, so the file keeps the order of the changes", async () => {
    const dir = tmp();
    const commit = createGroupCommit();
    const journal = createJournal({ file: path.join(dir, "journal.jsonl"), commit });
    const sessions = createSessionStore({ dir: path.join(dir, "sessions"), commit });
    const staged = sessions.stageEnqueue("main", "wake text", undefined, () => journal.staged({ type: "system_event", sessionKey: "main", text: "wake text" }));
    journal.append({ type: "heartbeat", reason: "interval", pending: 1 });
    await staged.stored;
    expect(
      read(journal.file)
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).type),
    ).toEqual(["system_event", "heartbeat"]);
  });

  it("a staged event is in the queue at once (dedupe and bounds see it) and leaves it again when its batch cannot be stored", async () => {
    const dir = tmp();
    const commit = createGroupCommit();
    const sessions = createSessionStore({ dir, commit, newId: () => "e1" });
    sessions.get("main");
    const { ev, stored } = sessions.stageEnqueue("main", "summary", { dedupeKey: "run-summary:1" });
    expect([sessions.pendingCount("main"), sessions.hasDedupeKey("main", "run-summary:1"), ev.id]).toEqual([1, true, "e1"]);
    disk = fullDiskAfter(0);
    commit.flush();
    await expect(stored).rejects.toMatchObject({ code: "ENOSPC" });
    disk.free();
    expect([sessions.pendingCount("main"), sessions.hasDedupeKey("main", "run-summary:1")]).toEqual([0, false]);
    await sessions.stageEnqueue("main", "again").stored;
    expect(
      createSessionStore({ dir })
        .get("main")
        .pending.map((e) => e.text),
    ).toEqual(["again"]);
  });
});
