/** readJournalTail: the end of journal.jsonl, a line cut by the window skipped, foreign lines skipped, no file = empty. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createJournal } from "../../../src/gateway/journal/journal";
import { readJournalTail } from "../../../src/gateway/journal/journal-tail";

describe("readJournalTail", () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), "journal-tail-"))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("reads the entries in file order and skips lines that are not journal entries", () => {
    const file = path.join(dir, "journal.jsonl");
    const j = createJournal({ file, now: () => new Date("2026-11-22T10:00:00.000Z") });
    j.append({ type: "heartbeat", reason: "interval", pending: 0 });
    j.close();
    fs.appendFileSync(file, 'not json\n{"type":"no ts"}\n');
    const j2 = createJournal({ file, now: () => new Date("2026-11-22T10:00:01.000Z") });
    j2.append({ type: "system_event", sessionKey: "main", text: "hi", runId: "r-1" });
    j2.close();
    expect(readJournalTail(file)).toEqual([
      { ts: "2026-11-22T10:00:00.000Z", type: "heartbeat", reason: "interval", pending: 0 },
      { ts: "2026-11-22T10:00:01.000Z", type: "system_event", sessionKey: "main", text: "hi", runId: "r-1" },
    ]);
  });

  it("reads only the last maxBytes and drops the line the window cuts", () => {
    const file = path.join(dir, "journal.jsonl");
    const line = (n: number) => JSON.stringify({ ts: `2026-11-22T10:00:0${n}.000Z`, type: "heartbeat", reason: "r", pending: n });
    fs.writeFileSync(file, `${line(1)}\n${line(2)}\n${line(3)}\n`);
    expect(readJournalTail(file, line(3).length + 10).map((e) => e.ts)).toEqual(["2026-11-22T10:00:03.000Z"]);
  });

  it("right after a rotation reads the rest of the window from the end of journal.1.jsonl, so the recent effects stay visible", () => {
    const file = path.join(dir, "journal.jsonl");
    const line = (n: number) => JSON.stringify({ ts: `2026-11-22T10:00:0${n}.000Z`, type: "heartbeat", reason: "r", pending: n });
    fs.writeFileSync(path.join(dir, "journal.1.jsonl"), `${line(1)}\n${line(2)}\n${line(3)}\n`);
    fs.writeFileSync(file, `${line(4)}\n`);
    const ts = (maxBytes: number) => readJournalTail(file, maxBytes).map((e) => (e as { pending?: number }).pending);
    expect(ts(10_000)).toEqual([1, 2, 3, 4]);
    // The window holds journal.jsonl and a bit more than the last line of journal.1.jsonl: the line it cuts is skipped.
    expect(ts(2 * (line(1).length + 1) + 10)).toEqual([3, 4]);
    // journal.jsonl alone fills the window: journal.1.jsonl is not read.
    expect(ts(line(4).length + 1)).toEqual([4]);
    fs.rmSync(file);
    expect(ts(10_000)).toEqual([1, 2, 3]);
  });

  it("a journal not written yet is empty", () => {
    expect(readJournalTail(path.join(dir, "missing.jsonl"))).toEqual([]);
  });
});
