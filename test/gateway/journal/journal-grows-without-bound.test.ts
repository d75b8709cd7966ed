/**
 * Regression: `<stateDir>/journal.jsonl` grew without bound (SPEC §7 "Bounded disk").
 * Now a write that would take it past `maxBytes` first renames it to `journal.1.jsonl`
 * (replacing the older one) and starts a new file: every line is whole in exactly
 * one file, staged lines land in the current file, a failed rotation loses nothing.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createJournal, type Journal } from "../../../src/gateway/journal/journal";
import { createGroupCommit } from "../../../src/gateway/storage/group-commit";

const MAX = 1000;
let dir: string;
let file: string;
let previous: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-journal-bound-"));
  file = path.join(dir, "journal.jsonl");
  previous = path.join(dir, "journal.1.jsonl");
});
afterEach(() => {
  jest.restoreAllMocks();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** The `pending` numbers of a file's lines, in order (every line must parse: none is torn). */
const numbers = (f: string): number[] =>
  fs.existsSync(f)
    ? fs
        .readFileSync(f, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { pending: number }).pending)
    : [];
const both = () => [...numbers(previous), ...numbers(file)];
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
/** About 100 bytes per line. */
const beat = (n: number) => ({ type: "heartbeat" as const, reason: "r".repeat(40), pending: n });
/** Bytes of one line with a one-digit number; NINE holds nine such lines and the tenth rotates. */
const LINE = Buffer.byteLength(JSON.stringify({ ts: "2026-11-25T10:00:00.000Z", ...beat(0) })) + 1;
const NINE = 9 * LINE + 5;
const open = (extra: Partial<Parameters<typeof createJournal>[0]> = {}): Journal =>
  createJournal({ file, now: () => new Date("2026-11-25T10:00:00.000Z"), maxBytes: MAX, ...extra });

describe("journal: bounded by rotation", () => {
  it("rotates once past maxBytes and keeps every line exactly once, in order, across journal.1.jsonl and journal.jsonl", () => {
    const j = open();
    for (let n = 0; n < 15; n++) j.append(beat(n));
    j.close();
    expect(numbers(previous).length).toBeGreaterThan(0);
    expect(both()).toEqual(range(0, 15));
    expect(fs.statSync(previous).size).toBeLessThanOrEqual(MAX);
    expect(fs.statSync(file).size).toBeLessThanOrEqual(MAX);
  });

  it("drops older rotations: after many rotations the two files hold the newest lines, contiguous, in about 2 × maxBytes", () => {
    const j = open();
    for (let n = 0; n < 500; n++) j.append(beat(n));
    j.close();
    expect(fs.readdirSync(dir).sort()).toEqual(["journal.1.jsonl", "journal.jsonl"]);
    const kept = both();
    expect(kept).toEqual(range(500 - kept.length, 500));
    expect(fs.statSync(previous).size + fs.statSync(file).size).toBeLessThanOrEqual(2 * MAX);
    expect(fs.statSync(previous).size).toBeGreaterThan(MAX - 200);
  });

  it("a batch of staged lines that crosses the bound lands whole in the new file, and a pair staged before the rotation is written to the new file, not the renamed one", async () => {
    const commit = createGroupCommit();
    const j = open({ commit, maxBytes: NINE });
    for (let n = 0; n < 8; n++) j.append(beat(n));
    const early = j.staged(beat(8));
    await Promise.all([commit.stage([early]), commit.stage([j.staged(beat(9))]), commit.stage([j.staged(beat(10))])]);
    expect([numbers(previous), numbers(file)]).toEqual([range(0, 8), [8, 9, 10]]);
    // A synchronous append writes the staged batch first (one write: it crosses the bound, so it starts a new file whole), then itself.
    const late = Array.from({ length: 6 }, (_, i) => commit.stage([j.staged(beat(11 + i))]));
    j.append(beat(17));
    await Promise.all(late);
    j.close();
    expect([numbers(previous), numbers(file)]).toEqual([[8, 9, 10], range(11, 18)]);
  });

  it("a start with journal.jsonl missing and journal.1.jsonl present (a crash right after the rename) creates journal.jsonl and keeps journal.1.jsonl", () => {
    const j = open();
    for (let n = 0; n < 5; n++) j.append(beat(n));
    j.close();
    fs.renameSync(file, previous);
    const again = open();
    again.append(beat(5));
    again.close();
    expect([numbers(previous), numbers(file)]).toEqual([range(0, 5), [5]]);
  });

  it("a rename that fails keeps the line in the current file (past the bound), warns once, and rotates at a later write once it can", () => {
    fs.mkdirSync(path.join(previous, "blocker"), { recursive: true });
    const warnings: string[] = [];
    const j = open({ logger: { warn: (m) => void warnings.push(m) } });
    for (let n = 0; n < 15; n++) j.append(beat(n));
    expect(numbers(file)).toEqual(range(0, 15));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      new RegExp(
        `^journal ${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} could not be rotated to journal\\.1\\.jsonl; it grows past its bound until a rotation succeeds: cannot rotate journal\\.jsonl: E`,
      ),
    );
    fs.rmSync(previous, { recursive: true });
    j.append(beat(15));
    j.close();
    expect([numbers(previous), numbers(file)]).toEqual([range(0, 15), [15]]);
  });

  it("a new file that cannot be created (full disk) fails the write with nothing lost: the old lines are whole in journal.1.jsonl, the next write creates journal.jsonl", () => {
    const j = open({ maxBytes: NINE });
    for (let n = 0; n < 9; n++) j.append(beat(n));
    const openSync = fs.openSync.bind(fs);
    const spy = jest.spyOn(fs, "openSync").mockImplementation(((p: fs.PathLike, flags?: fs.OpenMode, mode?: fs.Mode) => {
      if (p === file && !fs.existsSync(file)) throw Object.assign(new Error("ENOSPC: no space left on device, open"), { code: "ENOSPC" });
      return openSync(p, flags ?? "r", mode);
    }) as typeof fs.openSync);
    expect(() => j.append(beat(9))).toThrow(
      expect.objectContaining({
        name: "StorageWriteError",
        code: "ENOSPC",
        message: "cannot start a new journal.jsonl: ENOSPC: no space left on device, open",
      }),
    );
    expect([numbers(previous), fs.existsSync(file)]).toEqual([range(0, 9), false]);
    spy.mockRestore();
    j.append(beat(10));
    j.close();
    expect([numbers(previous), numbers(file)]).toEqual([range(0, 9), [10]]);
  });

  it('with "os" durability the rotation syncs the directory once, so the rename and the new file survive a power cut', () => {
    const fsync = jest.spyOn(fs, "fsyncSync");
    const j = open({ sync: true });
    for (let n = 0; n < 15; n++) j.append(beat(n));
    j.close();
    expect(both()).toEqual(range(0, 15));
    expect(fsync).toHaveBeenCalledTimes(1);
  });
});
