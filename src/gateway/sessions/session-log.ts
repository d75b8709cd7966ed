/**
 * The append-only change log of one session (`<name>.log.jsonl` beside the
 * session's snapshot `<name>.json`): one JSON object per line, each carrying a
 * sequence number `s` and one operation. Appending is O(1) and synchronous, so
 * an enqueue is on disk before it returns without rewriting the queue.
 *
 * Recovery replays the lines whose `s` is above the snapshot's `seq` (lines at
 * or below it were already folded into the snapshot by a compaction that
 * stopped before truncating the log). A torn last line (a crash mid-write) is
 * ignored and cut off, so later appends start on a clean line.
 *
 * @example
 *   appendSessionOp(file, { s: 7, op: "enqueue", ev: { id: "e1", ts, text: "hi" } });
 *   const { ops } = readSessionLog(file); // [{ s: 7, op: "enqueue", ev: … }]
 */
import fs from "node:fs";
import type { LastRoute } from "../../host-contract/host-api";
import type { ChatMessage, PendingSystemEvent } from "./session-types";

/** One change of a session. */
export type SessionChange =
  | { op: "enqueue"; ev: PendingSystemEvent }
  | { op: "consume"; ids: string[] }
  | { op: "history"; messages: ChatMessage[] }
  | { op: "route"; route: LastRoute }
  | { op: "heartbeat"; reason: string | null };

/** A change as logged, with its sequence number. */
export type SessionOp = SessionChange & { s: number };

export interface SessionLogContents {
  /** Complete, well-formed operations in file order. */
  ops: SessionOp[];
  /** Lines skipped: a torn tail or a line that is not a known operation. */
  skipped: number;
}

/** Log file of a session whose snapshot file is `snapshotFile` (`x.json` → `x.log.jsonl`). */
export function sessionLogFile(snapshotFile: string): string {
  return `${snapshotFile.replace(/\.json$/, "")}.log.jsonl`;
}

/** Appends one operation as one line; returns when the write has been handed to the OS. */
export function appendSessionOp(file: string, op: SessionOp): void {
  fs.appendFileSync(file, `${JSON.stringify(op)}\n`);
}

/** Empties the log (after its operations were folded into the snapshot). */
export function truncateSessionLog(file: string): void {
  if (fs.existsSync(file)) fs.truncateSync(file, 0);
}

const OPS = new Set(["enqueue", "consume", "history", "route", "heartbeat"]);

function parseOp(line: string): SessionOp | undefined {
  try {
    const v = JSON.parse(line) as Partial<SessionOp> | null;
    if (!v || typeof v !== "object" || typeof v.s !== "number" || typeof v.op !== "string" || !OPS.has(v.op)) return undefined;
    return v as SessionOp;
  } catch {
    return undefined;
  }
}

/**
 * Reads a session's log. A missing file is an empty log. A last line without
 * its newline is a torn write: it is skipped and cut from the file, so the
 * next append does not glue onto it. Malformed complete lines are skipped.
 */
export function readSessionLog(file: string): SessionLogContents {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return { ops: [], skipped: 0 };
    throw e;
  }
  const end = buf.lastIndexOf(0x0a) + 1;
  let skipped = 0;
  if (end < buf.length) {
    skipped++;
    fs.truncateSync(file, end);
  }
  const ops: SessionOp[] = [];
  for (const line of buf.subarray(0, end).toString("utf8").split("\n")) {
    if (line === "") continue;
    const op = parseOp(line);
    if (op) ops.push(op);
    else skipped++;
  }
  return { ops, skipped };
}
