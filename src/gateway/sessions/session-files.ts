/**
 * The files of the session store in `<stateDir>/sessions/`: each session is a snapshot
 * `<name>.json` and/or a change log `<name>.log.jsonl` (session-log.ts), where `<name>` is
 * a readable slug of the key plus a hash of the exact key. The key itself is read from
 * the snapshot, or from the log's first (`create`) line.
 *
 * @example
 *   sessionFileName("hook:github"); // "hook_github-3f2a…c1.json"
 *   sessionFiles(dir);              // [{ name, files: [...], key() }]
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { SessionRecord } from "./session-types";
import { readSessionLog } from "./session-log";

const SNAPSHOT = ".json";
const LOG = ".log.jsonl";

/** File name of a session: a readable slug plus a hash of the exact key. */
export function sessionFileName(key: string): string {
  const slug = key.replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 60);
  const hash = crypto.createHash("sha256").update(key).digest("hex").slice(0, 12);
  return `${slug}-${hash}${SNAPSHOT}`;
}

export interface SessionFiles {
  /** The common base name (without `.json` / `.log.jsonl`). */
  name: string;
  /** Absolute paths of the files present. */
  files: string[];
  /** The session key, read from the snapshot or the log's create line; undefined when neither says. Throws on an unreadable snapshot. */
  key(): string | undefined;
}

/** The sessions found in `dir`, one entry per base name. */
export function sessionFiles(dir: string): SessionFiles[] {
  const byName = new Map<string, string[]>();
  for (const f of fs.readdirSync(dir)) {
    const name = f.endsWith(LOG) ? f.slice(0, -LOG.length) : f.endsWith(SNAPSHOT) ? f.slice(0, -SNAPSHOT.length) : undefined;
    if (name === undefined) continue;
    byName.set(name, [...(byName.get(name) ?? []), path.join(dir, f)]);
  }
  return [...byName].map(([name, files]) => ({
    name,
    files,
    key() {
      const snapshot = files.find((f) => f.endsWith(SNAPSHOT) && !f.endsWith(LOG));
      if (snapshot) return (JSON.parse(fs.readFileSync(snapshot, "utf8")) as SessionRecord).key;
      const first = readSessionLog(path.join(dir, name + LOG)).ops[0];
      return first?.op === "create" ? first.key : undefined;
    },
  }));
}
