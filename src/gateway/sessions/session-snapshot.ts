/**
 * The snapshot file of one session (`<name>.json`): read with a check of its
 * shape, written atomically (temp file + rename, the temp file removed when the
 * write fails, e.g. on a full disk).
 *
 * A snapshot that cannot be parsed is damaged state: reading it throws a
 * `SessionStateError` naming the file (relative to the state dir, so the
 * message can travel into run summaries without exposing absolute paths).
 *
 * @example
 *   const snap = readSnapshot(file, "sessions/main-0a1b2c.json"); // undefined when missing
 *   writeSnapshot(file, "sessions/main-0a1b2c.json", { ...session, seq: 12 });
 */
import fs from "node:fs";
import path from "node:path";
import type { LastRoute } from "../../host-contract/host-api";
import { StorageWriteError, syncPath } from "../storage/line-file";
import type { SessionRecord } from "./session-types";
import { PRIVATE_FILE_MODE, mkdirPrivate } from "../../host-contract/private-fs";

/** What a snapshot file holds. */
export interface SessionSnapshot extends SessionRecord {
  /** Sequence number of the last log operation folded in (absent in files written before the log existed). */
  seq?: number;
}

/** A session file that cannot be used: `file` is the absolute path, `name` the state-dir-relative one. */
export class SessionStateError extends Error {
  readonly file: string;
  readonly reason: string;
  constructor(file: string, name: string, reason: string) {
    super(`the session file ${name} is damaged: ${reason}`);
    this.name = "SessionStateError";
    this.file = file;
    this.reason = reason;
  }
}

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** What is wrong with a parsed snapshot, or undefined when its shape is usable. */
function shapeProblem(v: unknown): string | undefined {
  if (!isObject(v)) return "not a JSON object";
  if (typeof v.key !== "string") return "no session key";
  if (v.pending !== undefined && !(Array.isArray(v.pending) && v.pending.every((e) => isObject(e) && typeof e.id === "string" && typeof e.text === "string"))) {
    return "its pending events are not a list of events";
  }
  if (v.history !== undefined && !(Array.isArray(v.history) && v.history.every((m) => isObject(m) && typeof m.content === "string"))) {
    return "its history is not a list of messages";
  }
  if (v.seq !== undefined && !Number.isSafeInteger(v.seq)) return "its sequence number is not an integer";
  return undefined;
}

/** Reads and checks a snapshot; undefined when the file does not exist. Throws SessionStateError when damaged. */
export function readSnapshot(file: string, name: string): SessionSnapshot | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    throw new SessionStateError(file, name, `unreadable (${code ?? (e as Error).message})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new SessionStateError(file, name, `not valid JSON (${(e as Error).message})`);
  }
  const problem = shapeProblem(parsed);
  if (problem) throw new SessionStateError(file, name, problem);
  const snap = parsed as SessionSnapshot;
  return { ...snap, pending: snap.pending ?? [], history: snap.history ?? [] };
}

/**
 * Writes a snapshot atomically. Throws StorageWriteError (the old snapshot stays, no temp file is left).
 * With `sync` ("os" durability) the new file's data and the rename are on the device before it returns,
 * so the log it replaces may be emptied after it without a power cut losing either.
 */
export function writeSnapshot(file: string, name: string, snapshot: SessionSnapshot, opts: { sync?: boolean } = {}): void {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(tmp, JSON.stringify(snapshot), { mode: PRIVATE_FILE_MODE });
    if (opts.sync) syncPath(tmp);
    fs.renameSync(tmp, file);
    if (opts.sync) syncPath(path.dirname(file));
  } catch (e) {
    try {
      fs.rmSync(tmp, { force: true });
    } catch {
      // Best effort: a leftover temp file is never read.
    }
    throw new StorageWriteError(file, name, "write", e);
  }
}

/** Temp files of snapshot rewrites (`<name>.json.<pid>.tmp`). */
const SNAPSHOT_TEMP = /\.json\.\d+\.tmp$/;

/** Creates `dir` when missing, and removes the temp files snapshot rewrites cut short by a crash left there (never read; each is a snapshot's size). */
export function prepareSessionDir(dir: string, logger?: { warn(message: string, meta?: Record<string, unknown>): void }): void {
  mkdirPrivate(dir);
  const temps = fs.readdirSync(dir).filter((f) => SNAPSHOT_TEMP.test(f));
  for (const f of temps) fs.rmSync(path.join(dir, f), { force: true });
  if (temps.length > 0)
    logger?.warn(`removed ${temps.length} temp file(s) of session snapshot rewrites cut short by a crash from ${path.basename(dir)}/`, { files: temps });
}
