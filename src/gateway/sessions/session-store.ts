/**
 * Sessions of the embedded gateway, persisted per session key in
 * `<stateDir>/sessions/`: the ordered queue of pending system events, the
 * conversation history the runners continue, the last delivery route, and a
 * pending heartbeat request.
 *
 * Each session is a snapshot `<name>.json` (rewritten atomically) plus an
 * append-only change log `<name>.log.jsonl` (see `session-log.ts`). Every change
 * is one line appended before the call returns (or, for `stageEnqueue`, before
 * its promise resolves: the line joins the turn's group commit, see
 * `storage/group-commit.ts`), so a restart keeps pending events and an enqueue
 * costs O(1) however long the queue is. A new session is one `create` line in its
 * log; its snapshot is first written when the log is compacted. The snapshot is
 * rewritten and the log emptied only when the log's dead entries outweigh the
 * live ones (e.g. right after a heartbeat consumed the queue), so rewrites are
 * amortised O(1) per change. Snapshots written before the log existed (no
 * `seq`) load as they are. `hasDedupeKey` is O(1) (dedupe-index.ts).
 *
 * Storage faults: a change whose line cannot be appended (disk full, I/O error)
 * throws a StorageWriteError (a staged one: its promise rejects with it) and
 * changes nothing, in memory or on disk. A
 * snapshot rewrite that fails only postpones the compaction (the log still
 * holds every change). Damaged state: a snapshot that cannot be parsed throws a
 * SessionStateError naming the file; a torn last log line is cut and a log
 * line that is not an operation is skipped, each with a warning naming the
 * file (and line).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { HostLogger, LastRoute, SystemEventMeta } from "../../host-contract/host-api";
import type { ChatMessage, PendingSystemEvent, SessionRecord, SessionStoreOptions } from "./session-types";
import { openLineFile, type LineFile } from "../storage/line-file";
import { createGroupCommit, type GroupCommit } from "../storage/group-commit";
import { prepareSessionDir, readSnapshot, writeSnapshot } from "./session-snapshot";
import { applyOp, live, newSessionState, revertEnqueue, weight, type SessionState } from "./session-state";

export type { ChatMessage, PendingSystemEvent, SessionRecord, SessionStoreOptions };
export { SessionStateError } from "./session-snapshot";
export { MAX_RECENT_DEDUPE_KEYS } from "./session-state";
import { sessionFileName, sessionFiles } from "./session-files";
export { sessionFileName } from "./session-files";
import { createdAtOf, readSessionLog, removeEmptyLog, sessionLogFile, truncateSessionLog, type SessionChange, type SessionOp } from "./session-log";

export interface SessionStore {
  readonly dir: string;
  has(key: string): boolean;
  /** The session, created (and `onCreated` called) on first use. Writes what is staged first, so it shows only stored events. */
  get(key: string): Readonly<SessionRecord>;
  /** Pending events of the session (staged ones included), without creating it. */
  pendingCount(key: string): number;
  /**
   * Appends a system event. `alongside` is a write that belongs to the same change
   * (the journal line): it runs once the event's line is stored, and when it throws
   * the line is removed again and the error rethrown, so either both are stored or
   * neither. Throws StorageWriteError when the event cannot be stored.
   */
  enqueue(key: string, text: string, meta?: SystemEventMeta, alongside?: (ev: PendingSystemEvent) => void): PendingSystemEvent;
  /**
   * Appends a system event through the group commit: it is in the queue at once
   * (dedupe and bounds see it), its line — and `alongside`, the journal line of the
   * same change — is written with the turn's batch, and `stored` resolves once both
   * are on disk. When the batch cannot be stored the event leaves the queue again
   * and `stored` rejects with the StorageWriteError.
   */
  stageEnqueue(
    key: string,
    text: string,
    meta?: SystemEventMeta,
    alongside?: (ev: PendingSystemEvent) => readonly [LineFile, string],
  ): { ev: PendingSystemEvent; stored: Promise<void> };
  /** True when the session already holds (or recently consumed) an event with this dedupe key. O(1). */
  hasDedupeKey(key: string, dedupeKey: string): boolean;
  /** Removes the given events from the queue; returns how many were removed. */
  consume(key: string, ids: readonly string[]): number;
  appendHistory(key: string, messages: ChatMessage[]): void;
  setLastRoute(key: string, route: LastRoute): void;
  setHeartbeatRequested(key: string, reason: string | undefined): void;
  keys(): string[];
  /**
   * Deletes a session's files and forgets it (writes staged for it are committed first).
   * Returns false (and keeps it) while it holds pending events. For sweeping idle sessions (session-sweep.ts).
   */
  remove(key: string): boolean;
}

export function createSessionStore(opts: SessionStoreOptions): SessionStore {
  const now = opts.now ?? (() => new Date());
  const newId = opts.newId ?? (() => crypto.randomUUID());
  const maxHistory = opts.maxHistory ?? 200;
  const logSlack = opts.logSlack ?? 1000;
  const commit = opts.commit ?? createGroupCommit();
  prepareSessionDir(opts.dir, opts.logger);
  const cache = new Map<string, SessionState>();

  const fileOf = (key: string) => path.join(opts.dir, sessionFileName(key));
  /** How messages name a session file: relative to the state dir (`sessions/<file>`). */
  const nameOf = (file: string) => path.join(path.basename(opts.dir), path.basename(file));
  const logOf = (key: string, file: string) =>
    openLineFile(sessionLogFile(file), { name: nameOf(sessionLogFile(file)), keepOpen: opts.keepOpen?.(key) ?? false, sync: opts.sync });

  /**
   * Writes the snapshot atomically (it covers every operation up to `st.seq`), then
   * empties the log. Throws StorageWriteError when the snapshot cannot be written.
   */
  const compact = (st: SessionState) => {
    writeSnapshot(st.file, st.name, { ...st.session, seq: st.seq }, { sync: opts.sync });
    truncateSessionLog(sessionLogFile(st.file));
    st.stored = live(st.session);
  };

  /** Compaction is an optimisation: when it fails (disk full) the log keeps every change and it is tried again later. */
  const compactIfPossible = (st: SessionState) => {
    try {
      compact(st);
    } catch (e) {
      opts.logger?.warn("session snapshot not rewritten; its log keeps the changes until it can be", { session: st.session.key, error: (e as Error).message });
    }
  };

  const compactWhenDue = (st: SessionState) => {
    if (st.stored > 2 * live(st.session) + logSlack && commit.staged === 0) compactIfPossible(st);
  };

  /**
   * Logs then applies one change; compacts once dead entries outweigh the live ones.
   * What is staged is written first (file order = change order). The line is stored
   * first: when it (or `alongside`) fails nothing changes.
   */
  const record = (st: SessionState, change: SessionChange, alongside?: () => void): number => {
    commit.flush();
    const full: SessionOp = { s: st.seq + 1, ...change };
    const before = st.log.append(JSON.stringify(full));
    if (alongside) {
      try {
        alongside();
      } catch (e) {
        try {
          st.log.truncate(before);
        } catch (undo) {
          opts.logger?.error("a change whose companion write failed could not be removed from the session log; it is cut before the next change", {
            session: st.session.key,
            error: (undo as Error).message,
          });
        }
        throw e;
      }
    }
    st.seq = full.s;
    st.stored += weight(full);
    const removed = applyOp(st, full, maxHistory);
    compactWhenDue(st);
    return removed;
  };

  /** Reads a session's snapshot (if any) and replays its log; undefined when neither holds the session. */
  const read = (key: string): SessionState | undefined => {
    const file = fileOf(key);
    const name = nameOf(file);
    const found = readSnapshot(file, name);
    const logFile = sessionLogFile(file);
    if (!found && !fs.existsSync(logFile)) return undefined;
    const log = readSessionLog(logFile, nameOf(logFile));
    let st: SessionState;
    if (found) {
      const { seq, ...snapshot } = found;
      st = newSessionState(snapshot, seq ?? 0, file, name, logOf(key, file));
    } else {
      const first = log.ops[0];
      if (first?.op === "create" && first.key !== key) return undefined;
      // The file is named after the key's hash: a log whose create line is damaged (skipped below) still holds this session's changes.
      if (log.ops.length === 0 && log.bad.length === 0) return undefined;
      st = newSessionState({ key, createdAt: createdAtOf(log.ops, now), pending: [], history: [] }, 0, file, name, logOf(key, file));
    }
    if (log.tornBytes > 0) {
      opts.logger?.warn(`session log ${nameOf(logFile)} ended in a torn line (a write cut short by a crash); dropped its ${log.tornBytes} bytes`, {
        session: key,
      });
    }
    for (const bad of log.bad) {
      opts.logger?.warn(`session log ${nameOf(logFile)} line ${bad.line} is ${bad.reason}; skipped`, { session: key, line: bad.line });
    }
    let stale = 0;
    for (const op of log.ops) {
      if (op.s <= st.seq) {
        stale++;
        continue;
      }
      applyOp(st, op, maxHistory);
      st.seq = op.s;
      st.stored += weight(op);
    }
    if (stale > 0 || log.bad.length > 0) compactIfPossible(st);
    return st;
  };

  const load = (key: string): SessionState | undefined => {
    const hit = cache.get(key);
    if (hit) return hit;
    const st = read(key);
    if (st) cache.set(key, st);
    return st;
  };

  const getOrCreate = (key: string): SessionState => {
    const found = load(key);
    if (found) return found;
    const file = fileOf(key);
    const st = newSessionState({ key, createdAt: now().toISOString(), pending: [], history: [] }, 0, file, nameOf(file), logOf(key, file));
    // On disk before it is used: a session whose first line could not be written does not exist.
    try {
      record(st, { op: "create", key, createdAt: st.session.createdAt });
    } catch (e) {
      st.log.close();
      removeEmptyLog(sessionLogFile(file));
      throw e;
    }
    cache.set(key, st);
    opts.onCreated?.(key);
    return st;
  };

  return {
    dir: opts.dir,
    has: (key) => load(key) !== undefined,
    get: (key) => {
      commit.flush();
      return getOrCreate(key).session;
    },
    pendingCount: (key) => load(key)?.session.pending.length ?? 0,
    enqueue(key, text, meta, alongside) {
      const ev: PendingSystemEvent = { id: newId(), ts: now().toISOString(), text, ...(meta ? { meta } : {}) };
      record(getOrCreate(key), { op: "enqueue", ev }, alongside && (() => alongside(ev)));
      return ev;
    },
    stageEnqueue(key, text, meta, alongside) {
      const st = getOrCreate(key);
      const ev: PendingSystemEvent = { id: newId(), ts: now().toISOString(), text, ...(meta ? { meta } : {}) };
      const seqBefore = st.seq;
      const full: SessionOp = { s: seqBefore + 1, op: "enqueue", ev };
      const lines: Array<readonly [LineFile, string]> = [[st.log, JSON.stringify(full)]];
      if (alongside) lines.push(alongside(ev));
      const stored = commit.stage(lines, () => revertEnqueue(st, ev.id, seqBefore));
      st.seq = full.s;
      st.stored += 1;
      applyOp(st, full, maxHistory);
      return { ev, stored: stored.then(() => compactWhenDue(st)) };
    },
    hasDedupeKey(key, dedupeKey) {
      return getOrCreate(key).dedupe.has(dedupeKey);
    },
    consume(key, ids) {
      commit.flush();
      const st = getOrCreate(key);
      const wanted = new Set(ids);
      const present = st.session.pending.filter((e) => wanted.has(e.id)).map((e) => e.id);
      return present.length > 0 ? record(st, { op: "consume", ids: present }) : 0;
    },
    appendHistory(key, messages) {
      record(getOrCreate(key), { op: "history", messages: [...messages] });
    },
    setLastRoute(key, route) {
      record(getOrCreate(key), { op: "route", route: { ...route } });
    },
    setHeartbeatRequested(key, reason) {
      const st = getOrCreate(key);
      if (st.session.heartbeatRequested === reason) return;
      record(st, { op: "heartbeat", reason: reason ?? null });
    },
    remove(key) {
      commit.flush();
      const st = load(key);
      if (st && st.session.pending.length > 0) return false;
      cache.delete(key);
      const file = fileOf(key);
      fs.rmSync(sessionLogFile(file), { force: true });
      fs.rmSync(file, { force: true });
      return true;
    },
    keys() {
      commit.flush();
      return sessionFiles(opts.dir).flatMap((s) => s.key() ?? []);
    },
  };
}
