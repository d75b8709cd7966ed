/**
 * Storage faults and damaged state in the session store (SPEC §7): a change that
 * cannot be stored changes nothing; a failed companion write (the journal line)
 * takes the change back; damage found at load is named (file, line) or refused.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createSessionStore, sessionFileName, SessionStateError } from "../../../src/gateway/sessions/session-store";
import { sessionLogFile } from "../../../src/gateway/sessions/session-log";
import { StorageWriteError } from "../../../src/gateway/storage/line-file";
import { fullDiskAfter, type FullDisk } from "../storage/full-disk";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "gw-sessf-"));
const ids = () => {
  let n = 0;
  return () => `e${++n}`;
};
const logOf = (dir: string, key: string) => path.join(dir, sessionLogFile(sessionFileName(key)));

function recorder() {
  const lines: Array<{ level: string; message: string; meta?: Record<string, unknown> }> = [];
  const at = (level: string) => (message: string, meta?: Record<string, unknown>) => void lines.push({ level, message, meta });
  return { lines, logger: { warn: at("warn"), error: at("error") } };
}

describe("session store: storage faults", () => {
  let disk: FullDisk | undefined;
  afterEach(() => {
    disk?.restore();
    disk = undefined;
  });

  it("an enqueue that the disk cannot take throws ENOSPC and changes nothing; the store works again when space returns", () => {
    const dir = tmp();
    const s = createSessionStore({ dir, newId: ids() });
    s.enqueue("main", "before");
    disk = fullDiskAfter(10);
    expect(() => s.enqueue("main", "refused")).toThrow(expect.objectContaining({ name: "StorageWriteError", code: "ENOSPC" }));
    expect(s.get("main").pending.map((e) => e.text)).toEqual(["before"]);
    disk.free();
    s.enqueue("main", "after");
    expect(
      createSessionStore({ dir })
        .get("main")
        .pending.map((e) => e.text),
    ).toEqual(["before", "after"]);
    expect(fs.readFileSync(logOf(dir, "main"), "utf8").endsWith("\n")).toBe(true);
  });

  it("an event whose journal line fails is taken back: not in memory, not on disk, not after a restart (regression: a wake answered 500 was queued anyway)", () => {
    const dir = tmp();
    const s = createSessionStore({ dir, newId: ids() });
    s.enqueue("main", "kept");
    const logBefore = fs.readFileSync(logOf(dir, "main"), "utf8");
    const journalFull = Object.assign(new Error("cannot append to journal.jsonl: ENOSPC"), { code: "ENOSPC" });
    expect(() =>
      s.enqueue("main", "refused", undefined, () => {
        throw journalFull;
      }),
    ).toThrow(journalFull);
    expect(s.get("main").pending.map((e) => e.text)).toEqual(["kept"]);
    expect(fs.readFileSync(logOf(dir, "main"), "utf8")).toBe(logBefore);
    s.enqueue("main", "next");
    expect(
      createSessionStore({ dir })
        .get("main")
        .pending.map((e) => e.text),
    ).toEqual(["kept", "next"]);
  });

  it("a snapshot rewrite that fails on a full disk only postpones the compaction: the change is kept and no temp file is left", () => {
    const dir = tmp();
    const logged = recorder();
    const s = createSessionStore({ dir, newId: ids(), logSlack: 0, logger: logged.logger });
    s.enqueue("main", "a");
    const logLine = fs.readFileSync(logOf(dir, "main"), "utf8").length;
    // Room for the consume line, not for the snapshot the compaction after it writes.
    disk = fullDiskAfter(logLine);
    expect(s.consume("main", ["e1"])).toBe(1);
    expect(logged.lines.map((l) => l.message)).toEqual(["session snapshot not rewritten; its log keeps the changes until it can be"]);
    expect(fs.readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
    disk.free();
    expect(createSessionStore({ dir }).get("main").pending).toEqual([]);
  });

  it("a session whose first line cannot be written does not exist: the enqueue throws and nothing is created", () => {
    const dir = tmp();
    const s = createSessionStore({ dir, newId: ids() });
    disk = fullDiskAfter(0);
    expect(() => s.enqueue("hook:new", "x")).toThrow(StorageWriteError);
    disk.free();
    expect(s.has("hook:new")).toBe(false);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe("session store: damaged state at load", () => {
  it("a snapshot that is not valid JSON throws a SessionStateError naming the file (relative to the state dir) and why", () => {
    const dir = path.join(tmp(), "sessions");
    createSessionStore({ dir }).enqueue("main", "x");
    const file = path.join(dir, sessionFileName("main"));
    fs.writeFileSync(file, '{"key":"main","pending":[{"id":"e1","text":"unterminated');
    let thrown: unknown;
    try {
      createSessionStore({ dir }).get("main");
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SessionStateError);
    expect(thrown).toMatchObject({
      file,
      message: expect.stringMatching(
        new RegExp(`^the session file sessions/${sessionFileName("main").replace(/\./g, "\\.")} is damaged: not valid JSON \\(.+\\)$`),
      ),
    });
  });

  it("a snapshot whose pending events are not a list is refused, not half-loaded", () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, sessionFileName("main")), JSON.stringify({ key: "main", createdAt: "x", pending: "oops", history: [] }));
    expect(() => createSessionStore({ dir }).get("main")).toThrow("is damaged: its pending events are not a list of events");
  });

  it("a garbled log line is skipped with a warning naming the file and the line; the other changes are kept (regression: dropped silently)", () => {
    const dir = path.join(tmp(), "sessions");
    const a = createSessionStore({ dir, newId: ids() });
    a.enqueue("main", "one");
    fs.appendFileSync(logOf(dir, "main"), '{"s":2,"op":"enqueue","ev":{"id":"x","te{"s":2,"op":"enq\n');
    a.enqueue("main", "three");
    const logged = recorder();
    const b = createSessionStore({ dir, logger: logged.logger });
    expect(b.get("main").pending.map((e) => e.text)).toEqual(["one", "three"]);
    const name = `sessions/${sessionLogFile(sessionFileName("main"))}`;
    // Line 1 is the session's create line.
    expect(logged.lines).toEqual([{ level: "warn", message: `session log ${name} line 3 is not valid JSON; skipped`, meta: { session: "main", line: 3 } }]);
  });

  it("regression: a session log whose create line was damaged lost its pending events without a word, and every event enqueued after (read as a new session); now they are replayed with a warning", () => {
    const dir = path.join(tmp(), "sessions");
    const a = createSessionStore({ dir, newId: ids() });
    a.enqueue("main", "one");
    a.enqueue("main", "two");
    const lines = fs.readFileSync(logOf(dir, "main"), "utf8").split("\n");
    lines[0] = lines[0]!.slice(0, 20); // the create line garbled (damage from outside: the gateway writes whole lines)
    fs.writeFileSync(logOf(dir, "main"), lines.join("\n"));
    const logged = recorder();
    const b = createSessionStore({ dir, newId: () => "e3", logger: logged.logger });
    expect(b.get("main").pending.map((e) => e.text)).toEqual(["one", "two"]);
    b.enqueue("main", "three");
    const name = `sessions/${sessionLogFile(sessionFileName("main"))}`;
    expect(logged.lines.map((l) => l.message)).toEqual([`session log ${name} line 1 is not valid JSON; skipped`]);
    const c = createSessionStore({ dir });
    expect(c.get("main").pending.map((e) => `${e.id}:${e.text}`)).toEqual(["e1:one", "e2:two", "e3:three"]);
    expect(c.keys()).toEqual(["main"]);
  });

  it("regression: a log line naming a known operation without its fields (an enqueue without its event) failed the load with a TypeError naming no file; now it is skipped with a warning naming the file and the line", () => {
    const dir = path.join(tmp(), "sessions");
    const a = createSessionStore({ dir, newId: ids() });
    a.enqueue("main", "one");
    fs.appendFileSync(logOf(dir, "main"), '{"s":3,"op":"enqueue","eu":{"id":"x"}}\n{"s":4,"op":"history"}\n{"s":5,"op":"consume","ids":"e1"}\n');
    a.enqueue("main", "two");
    const logged = recorder();
    const b = createSessionStore({ dir, logger: logged.logger });
    expect(b.get("main").pending.map((e) => e.text)).toEqual(["one", "two"]);
    const name = `sessions/${sessionLogFile(sessionFileName("main"))}`;
    expect(logged.lines.map((l) => l.message)).toEqual([
      `session log ${name} line 3 is not a well-formed enqueue operation; skipped`,
      `session log ${name} line 4 is not a well-formed history operation; skipped`,
      `session log ${name} line 5 is not a well-formed consume operation; skipped`,
    ]);
  });

  it("regression: a session log that cannot be read (replaced by a directory) failed with a bare EISDIR naming no file; now a SessionStateError names it", () => {
    const dir = path.join(tmp(), "sessions");
    fs.mkdirSync(logOf(dir, "main"), { recursive: true });
    const err = (() => {
      try {
        createSessionStore({ dir }).get("main");
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(SessionStateError);
    expect((err as SessionStateError).message).toBe(`the session file sessions/${sessionLogFile(sessionFileName("main"))} is damaged: unreadable (EISDIR)`);
    expect((err as SessionStateError).file).toBe(logOf(dir, "main"));
  });

  it("regression: the temp file of a snapshot rewrite cut short by a crash stayed in sessions/ for ever (one more per crash); now the next start removes it", () => {
    const dir = path.join(tmp(), "sessions");
    createSessionStore({ dir, newId: ids() }).enqueue("main", "one");
    const leftover = `${path.join(dir, sessionFileName("main"))}.4242.tmp`;
    fs.writeFileSync(leftover, '{"key":"main","pending":[{"id":"e1","te');
    fs.writeFileSync(path.join(dir, "notes.txt"), "not ours");
    const logged = recorder();
    const b = createSessionStore({ dir, logger: logged.logger });
    expect(fs.existsSync(leftover)).toBe(false);
    expect(logged.lines.map((l) => l.message)).toEqual(["removed 1 temp file(s) of session snapshot rewrites cut short by a crash from sessions/"]);
    expect(fs.existsSync(path.join(dir, "notes.txt"))).toBe(true);
    expect(b.get("main").pending.map((e) => e.text)).toEqual(["one"]);
  });

  it("a torn last log line (a crash mid-write) is cut with a warning naming the file", () => {
    const dir = path.join(tmp(), "sessions");
    createSessionStore({ dir, newId: ids() }).enqueue("main", "one");
    fs.appendFileSync(logOf(dir, "main"), '{"s":2,"op":"enq');
    const logged = recorder();
    expect(
      createSessionStore({ dir, logger: logged.logger })
        .get("main")
        .pending.map((e) => e.text),
    ).toEqual(["one"]);
    const name = `sessions/${sessionLogFile(sessionFileName("main"))}`;
    expect(logged.lines.map((l) => l.message)).toEqual([`session log ${name} ended in a torn line (a write cut short by a crash); dropped its 16 bytes`]);
  });
});
