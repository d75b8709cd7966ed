/**
 * Sessions of the embedded gateway, persisted per session key in
 * `<stateDir>/sessions/`: the ordered queue of pending system events, the
 * conversation history the runners continue, the last delivery route, and a
 * pending heartbeat request.
 *
 * Each session is a snapshot `<name>.json` (rewritten atomically) plus an
 * append-only change log `<name>.log.jsonl` (see `session-log.ts`). Every change
 * is one line appended synchronously before the call returns, so a restart keeps
 * pending events and an enqueue costs O(1) however long the queue is. The
 * snapshot is rewritten and the log emptied only when the log's dead entries
 * outweigh the live ones (e.g. right after a heartbeat consumed the queue), so
 * rewrites are amortised O(1) per change. Snapshots written before the log
 * existed (no `seq`) load as they are.
 *
 * Storage faults: a change whose line cannot be appended (disk full, I/O error)
 * throws a StorageWriteError and changes nothing, in memory or on disk. A
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
import type { ChatMessage, PendingSystemEvent, SessionRecord } from "./session-types";
import { openLineFile, type LineFile } from "../storage/line-file";
import { readSnapshot, writeSnapshot } from "./session-snapshot";

export type { ChatMessage, PendingSystemEvent, SessionRecord };
export { SessionStateError } from "./session-snapshot";
import { readSessionLog, sessionLogFile, truncateSessionLog, type SessionChange, type SessionOp } from "./session-log";

/** How many dedupe keys of consumed events a session remembers. */
export const MAX_RECENT_DEDUPE_KEYS = 1000;

const dedupeKeyOf = (e: PendingSystemEvent): string | undefined => (typeof e.meta?.dedupeKey === "string" ? e.meta.dedupeKey : undefined);

export interface SessionStore {
  readonly dir: string;
  has(key: string): boolean;
  /** The session, created (and `onCreated` called) on first use. */
  get(key: string): Readonly<SessionRecord>;
  /**
   * Appends a system event. `alongside` is a write that belongs to the same change
   * (the journal line): it runs once the event's line is stored, and when it throws
   * the line is removed again and the error rethrown, so either both are stored or
   * neither. Throws StorageWriteError when the event cannot be stored.
   */
  enqueue(key: string, text: string, meta?: SystemEventMeta, alongside?: (ev: PendingSystemEvent) => void): PendingSystemEvent;
  /** True when the session already holds (or recently consumed) an event with this dedupe key. */
  hasDedupeKey(key: string, dedupeKey: string): boolean;
  /** Removes the given events from the queue; returns how many were removed. */
  consume(key: string, ids: readonly string[]): number;
  appendHistory(key: string, messages: ChatMessage[]): void;
  setLastRoute(key: string, route: LastRoute): void;
  setHeartbeatRequested(key: string, reason: string | undefined): void;
  keys(): string[];
}

export interface SessionStoreOptions {
  dir: string;
  /** Most recent history messages kept per session (default 200). */
  maxHistory?: number;
  onCreated?: (key: string) => void;
  /**
   * Entries the log may hold beyond twice the live ones (pending events plus
   * history messages) before the snapshot is rewritten (default 1000).
   */
  logSlack?: number;
  now?: () => Date;
  newId?: () => string;
  /** Where recovered damage (torn or skipped log lines) and postponed compactions are reported. */
  logger?: Pick<HostLogger, "warn" | "error">;
}

/** File name of a session: a readable slug plus a hash of the exact key. */
export function sessionFileName(key: string): string {
  const slug = key.replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 60);
  const hash = crypto.createHash("sha256").update(key).digest("hex").slice(0, 12);
  return `${slug}-${hash}.json`;
}

/** A session in memory with its position in the change log. */
interface SessionState {
  rec: SessionRecord;
  /** Sequence number of the last logged operation (or of the snapshot). */
  seq: number;
  /** Entries on disk (snapshot's events + messages, plus each logged operation's weight). */
  stored: number;
  /** The session's change log. */
  log: LineFile;
}

const weight = (op: SessionOp) => (op.op === "history" ? op.messages.length : 1);
const live = (rec: SessionRecord) => rec.pending.length + rec.history.length;

export function createSessionStore(opts: SessionStoreOptions): SessionStore {
  const now = opts.now ?? (() => new Date());
  const newId = opts.newId ?? (() => crypto.randomUUID());
  const maxHistory = opts.maxHistory ?? 200;
  const logSlack = opts.logSlack ?? 1000;
  fs.mkdirSync(opts.dir, { recursive: true });
  const cache = new Map<string, SessionState>();

  const fileOf = (key: string) => path.join(opts.dir, sessionFileName(key));
  /** How messages name a session file: relative to the state dir (`sessions/<file>`). */
  const nameOf = (file: string) => path.join(path.basename(opts.dir), path.basename(file));
  const logOf = (file: string) => openLineFile(sessionLogFile(file), { name: nameOf(sessionLogFile(file)) });

  /** Applies one operation to the in-memory record; returns how many events it removed. */
  const apply = (rec: SessionRecord, op: SessionOp): number => {
    switch (op.op) {
      case "enqueue":
        rec.pending.push(op.ev);
        return 0;
      case "consume": {
        const drop = new Set(op.ids);
        const before = rec.pending.length;
        const consumedKeys = rec.pending.filter((e) => drop.has(e.id)).map(dedupeKeyOf).filter((k): k is string => k !== undefined);
        if (consumedKeys.length > 0) rec.recentDedupeKeys = [...(rec.recentDedupeKeys ?? []), ...consumedKeys].slice(-MAX_RECENT_DEDUPE_KEYS);
        rec.pending = rec.pending.filter((e) => !drop.has(e.id));
        return before - rec.pending.length;
      }
      case "history":
        rec.history.push(...op.messages);
        if (rec.history.length > maxHistory) rec.history.splice(0, rec.history.length - maxHistory);
        return 0;
      case "route":
        rec.lastRoute = { ...op.route };
        return 0;
      case "heartbeat":
        if (op.reason === null) delete rec.heartbeatRequested;
        else rec.heartbeatRequested = op.reason;
        return 0;
    }
  };

  /**
   * Writes the snapshot atomically (it covers every operation up to `st.seq`), then
   * empties the log. Throws StorageWriteError when the snapshot cannot be written.
   */
  const compact = (st: SessionState) => {
    const file = fileOf(st.rec.key);
    writeSnapshot(file, nameOf(file), { ...st.rec, seq: st.seq });
    truncateSessionLog(sessionLogFile(file));
    st.stored = live(st.rec);
  };

  /** Compaction is an optimisation: when it fails (disk full) the log keeps every change and it is tried again later. */
  const compactIfPossible = (st: SessionState) => {
    try {
      compact(st);
    } catch (e) {
      opts.logger?.warn("session snapshot not rewritten; its log keeps the changes until it can be", { session: st.rec.key, error: (e as Error).message });
    }
  };

  /**
   * Logs then applies one change; compacts once dead entries outweigh the live ones.
   * The line is stored first: when it (or `alongside`) fails nothing changes.
   */
  const record = (st: SessionState, change: SessionChange, alongside?: () => void): number => {
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
            session: st.rec.key,
            error: (undo as Error).message,
          });
        }
        throw e;
      }
    }
    st.seq = full.s;
    st.stored += weight(full);
    const removed = apply(st.rec, full);
    if (st.stored > 2 * live(st.rec) + logSlack) compactIfPossible(st);
    return removed;
  };

  const load = (key: string): SessionState | undefined => {
    const hit = cache.get(key);
    if (hit) return hit;
    const file = fileOf(key);
    const found = readSnapshot(file, nameOf(file));
    if (!found) return undefined;
    const { seq, ...snapshot } = found;
    const rec: SessionRecord = snapshot;
    const st: SessionState = { rec, seq: seq ?? 0, stored: live(rec), log: logOf(file) };
    const logFile = sessionLogFile(file);
    const log = readSessionLog(logFile);
    if (log.tornBytes > 0) {
      opts.logger?.warn(`session log ${nameOf(logFile)} ended in a torn line (a write cut short by a crash); dropped its ${log.tornBytes} bytes`, { session: key });
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
      apply(rec, op);
      st.seq = op.s;
      st.stored += weight(op);
    }
    if (stale > 0 || log.bad.length > 0) compactIfPossible(st);
    cache.set(key, st);
    return st;
  };

  const getOrCreate = (key: string): SessionState => {
    const found = load(key);
    if (found) return found;
    const file = fileOf(key);
    const st: SessionState = { rec: { key, createdAt: now().toISOString(), pending: [], history: [] }, seq: 0, stored: 0, log: logOf(file) };
    // On disk before it is used: a session whose snapshot could not be written does not exist.
    compact(st);
    cache.set(key, st);
    opts.onCreated?.(key);
    return st;
  };

  return {
    dir: opts.dir,
    has: (key) => load(key) !== undefined,
    get: (key) => getOrCreate(key).rec,
    enqueue(key, text, meta, alongside) {
      const ev: PendingSystemEvent = { id: newId(), ts: now().toISOString(), text, ...(meta ? { meta } : {}) };
      record(getOrCreate(key), { op: "enqueue", ev }, alongside && (() => alongside(ev)));
      return ev;
    },
    hasDedupeKey(key, dedupeKey) {
      const rec = getOrCreate(key).rec;
      return rec.pending.some((e) => dedupeKeyOf(e) === dedupeKey) || (rec.recentDedupeKeys ?? []).includes(dedupeKey);
    },
    consume(key, ids) {
      const st = getOrCreate(key);
      const wanted = new Set(ids);
      const present = st.rec.pending.filter((e) => wanted.has(e.id)).map((e) => e.id);
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
      if (st.rec.heartbeatRequested === reason) return;
      record(st, { op: "heartbeat", reason: reason ?? null });
    },
    keys() {
      return fs
        .readdirSync(opts.dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => (JSON.parse(fs.readFileSync(path.join(opts.dir, f), "utf8")) as SessionRecord).key);
    },
  };
}
