/**
 * The append-only change log of one session (`<name>.log.jsonl` beside the
 * session's snapshot `<name>.json`): one JSON object per line, each carrying a
 * sequence number `s` and one operation. Appending is O(1) and synchronous, so
 * an enqueue is on disk before it returns without rewriting the queue.
 *
 * Appends are whole lines (see `storage/line-file.ts`): a failed or short write
 * is cut back, so the log never holds half an operation for the next append to
 * glue onto.
 *
 * Recovery replays the lines whose `s` is above the snapshot's `seq` (lines at
 * or below it were already folded into the snapshot by a compaction that
 * stopped before truncating the log). A torn last line (a crash or power cut
 * mid-write) is cut off, so later appends start on a clean line; a complete
 * line that is not an operation is skipped. Both are reported to the caller
 * (file line numbers), which warns.
 *
 * @example
 *   const log = openLineFile(sessionLogFile(snapshot));
 *   log.append(JSON.stringify({ s: 7, op: "enqueue", ev: { id: "e1", ts, text: "hi" } }));
 *   const { ops } = readSessionLog(sessionLogFile(snapshot)); // [{ s: 7, op: "enqueue", ev: … }]
 */
import fs from "node:fs";
import type { LastRoute } from "../../host-contract/host-api";
import type { ChatMessage, PendingSystemEvent } from "./session-types";
import { isObject, SessionStateError } from "./session-snapshot";

/** One change of a session. */
export type SessionChange =
  /** First line of a session that has no snapshot yet (a new session costs one line, not a snapshot file). */
  | { op: "create"; key: string; createdAt: string }
  | { op: "enqueue"; ev: PendingSystemEvent }
  | { op: "consume"; ids: string[] }
  | { op: "history"; messages: ChatMessage[] }
  | { op: "route"; route: LastRoute }
  | { op: "heartbeat"; reason: string | null };

/** A change as logged, with its sequence number. */
export type SessionOp = SessionChange & { s: number };

/** A complete line of the log that is not an operation (skipped). */
export interface BadLogLine {
  /** 1-based line number in the file. */
  line: number;
  /** Why, without the line's content (it may hold hook text). */
  reason: string;
}

export interface SessionLogContents {
  /** Complete, well-formed operations in file order. */
  ops: SessionOp[];
  /** Complete lines that are not operations, skipped. */
  bad: BadLogLine[];
  /** Bytes of a torn last line (no newline) that were cut from the file; 0 when none. */
  tornBytes: number;
}

/** Log file of a session whose snapshot file is `snapshotFile` (`x.json` → `x.log.jsonl`). */
export function sessionLogFile(snapshotFile: string): string {
  return `${snapshotFile.replace(/\.json$/, "")}.log.jsonl`;
}

/** When a session read from its log was created: its create line's time, else (that line damaged) its first event's, else now. */
export function createdAtOf(ops: readonly SessionOp[], now: () => Date): string {
  const first = ops[0];
  if (first?.op === "create") return first.createdAt;
  const ev = ops.find((op) => op.op === "enqueue");
  return ev?.op === "enqueue" ? ev.ev.ts : now().toISOString();
}

/** Empties the log (after its operations were folded into the snapshot). */
export function truncateSessionLog(file: string): void {
  if (fs.existsSync(file)) fs.truncateSync(file, 0);
}

/** Removes a log the failed first write of a session left empty (best effort: an empty log holds no session anyway). */
export function removeEmptyLog(file: string): void {
  try {
    if (fs.statSync(file).size === 0) fs.rmSync(file);
  } catch {
    // Missing already, or not removable: it holds no session either way.
  }
}

const isString = (v: unknown): v is string => typeof v === "string";

/** Whether a line's fields are what its operation needs (as the snapshot's check, session-snapshot.ts, asks of its own). */
const WELL_FORMED: Record<SessionOp["op"], (v: Record<string, unknown>) => boolean> = {
  create: (v) => isString(v.key) && isString(v.createdAt),
  enqueue: (v) => isObject(v.ev) && isString(v.ev.id) && isString(v.ev.ts) && isString(v.ev.text),
  consume: (v) => Array.isArray(v.ids) && v.ids.every(isString),
  history: (v) => Array.isArray(v.messages) && v.messages.every((m) => isObject(m) && isString(m.content)),
  route: (v) => isObject(v.route) && isString(v.route.channel),
  heartbeat: (v) => v.reason === null || isString(v.reason),
};

function parseOp(line: string): SessionOp | string {
  let v: unknown;
  try {
    v = JSON.parse(line);
  } catch {
    return "not valid JSON";
  }
  if (!isObject(v) || !Number.isSafeInteger(v.s)) return "not an operation (no sequence number)";
  if (typeof v.op !== "string" || !Object.hasOwn(WELL_FORMED, v.op)) return "not a known operation";
  if (!WELL_FORMED[v.op as SessionOp["op"]](v)) return `not a well-formed ${v.op} operation`;
  return v as unknown as SessionOp;
}

/**
 * Reads a session's log (`name`: how errors name it). A missing file is an empty log;
 * one that cannot be read (a directory, no permission) throws a SessionStateError. A last line without
 * its newline is a torn write: it is cut from the file (so the next append does
 * not glue onto it) and reported as `tornBytes`. Complete lines that are not
 * operations are skipped and reported in `bad` with their line numbers.
 */
export function readSessionLog(file: string, name = file): SessionLogContents {
  let buf: Buffer;
  try {
    buf = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ops: [], bad: [], tornBytes: 0 };
    throw new SessionStateError(file, name, `unreadable (${code ?? (e as Error).message})`);
  }
  const end = buf.lastIndexOf(0x0a) + 1;
  const tornBytes = buf.length - end;
  if (tornBytes > 0) fs.truncateSync(file, end);
  const ops: SessionOp[] = [];
  const bad: BadLogLine[] = [];
  const lines = buf.subarray(0, end).toString("utf8").split("\n");
  lines.forEach((line, i) => {
    if (line === "") return;
    const op = parseOp(line);
    if (typeof op === "string") bad.push({ line: i + 1, reason: op });
    else ops.push(op);
  });
  return { ops, bad, tornBytes };
}
