/**
 * Reads the newest entries of the journal for the dashboard: the last
 * `maxBytes` of `journal.jsonl` (a line cut by that window is skipped), parsed
 * line by line, in file order. When `journal.jsonl` holds less than `maxBytes`
 * (right after a rotation it is nearly empty), the rest of the window is read
 * from the end of `journal.1.jsonl`, the previous journal, so the recent effects
 * stay visible across a rotation. A line that is not a JSON object with `ts` and
 * `type` is skipped; a missing file is an empty journal. Linear in `maxBytes`.
 *
 * @example
 *   const recent = readJournalTail("/state/journal.jsonl").filter((e) => e.ts >= since);
 */
import fs from "node:fs";
import { previousJournalFile, type JournalEntry } from "./journal";

/** How much of the journal's end the dashboard reads at most (older effects are not shown). */
export const JOURNAL_TAIL_BYTES = 4 * 1024 * 1024;

export function readJournalTail(file: string, maxBytes = JOURNAL_TAIL_BYTES): JournalEntry[] {
  const current = readEnd(file, maxBytes);
  if (current.size >= maxBytes) return parseLines(current.text, current.cut);
  const previous = readEnd(previousJournalFile(file), maxBytes - current.size);
  return [...parseLines(previous.text, previous.cut), ...parseLines(current.text, current.cut)];
}

/** The last `maxBytes` of `file` (missing: empty); `cut` when the window starts inside the file. */
function readEnd(file: string, maxBytes: number): { text: string; size: number; cut: boolean } {
  let fd: number;
  try {
    fd = fs.openSync(file, "r");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { text: "", size: 0, cut: false };
    throw e;
  }
  try {
    const size = fs.fstatSync(fd).size;
    const length = Math.min(size, maxBytes);
    const buf = Buffer.alloc(length);
    fs.readSync(fd, buf, 0, length, size - length);
    return { text: buf.toString("utf8"), size, cut: length < size };
  } finally {
    fs.closeSync(fd);
  }
}

function parseLines(text: string, cut: boolean): JournalEntry[] {
  const lines = text.split("\n");
  if (cut) lines.shift();
  const entries: JournalEntry[] = [];
  for (const line of lines) {
    if (line === "") continue;
    try {
      const v = JSON.parse(line) as unknown;
      if (v !== null && typeof v === "object" && typeof (v as JournalEntry).ts === "string" && typeof (v as JournalEntry).type === "string")
        entries.push(v as JournalEntry);
    } catch {
      // A foreign or damaged line: not an effect the dashboard can show.
    }
  }
  return entries;
}
