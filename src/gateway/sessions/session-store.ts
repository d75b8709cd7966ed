/**
 * Sessions of the embedded gateway, persisted one JSON file per session key in
 * `<stateDir>/sessions/`: the ordered queue of pending system events, the
 * conversation history the runners continue, the last delivery route, and a
 * pending heartbeat request. Every change is written (atomically) before the
 * call returns, so a restart keeps pending events.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { LastRoute, SystemEventMeta } from "../../plugin/host-api";

export interface PendingSystemEvent {
  id: string;
  ts: string;
  text: string;
  meta?: SystemEventMeta;
}

export interface ChatMessage {
  role: "user" | "assistant";
  content: string;
}

export interface SessionRecord {
  key: string;
  createdAt: string;
  pending: PendingSystemEvent[];
  history: ChatMessage[];
  lastRoute?: LastRoute;
  /** Reason of a heartbeat requested but not yet run (survives a restart). */
  heartbeatRequested?: string;
}

export interface SessionStore {
  readonly dir: string;
  has(key: string): boolean;
  /** The session, created (and `onCreated` called) on first use. */
  get(key: string): Readonly<SessionRecord>;
  enqueue(key: string, text: string, meta?: SystemEventMeta): PendingSystemEvent;
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
  now?: () => Date;
  newId?: () => string;
}

/** File name of a session: a readable slug plus a hash of the exact key. */
export function sessionFileName(key: string): string {
  const slug = key.replace(/[^a-zA-Z0-9_.-]/g, "_").slice(0, 60);
  const hash = crypto.createHash("sha256").update(key).digest("hex").slice(0, 12);
  return `${slug}-${hash}.json`;
}

export function createSessionStore(opts: SessionStoreOptions): SessionStore {
  const now = opts.now ?? (() => new Date());
  const newId = opts.newId ?? (() => crypto.randomUUID());
  const maxHistory = opts.maxHistory ?? 200;
  fs.mkdirSync(opts.dir, { recursive: true });
  const cache = new Map<string, SessionRecord>();

  const fileOf = (key: string) => path.join(opts.dir, sessionFileName(key));
  const write = (rec: SessionRecord) => {
    const file = fileOf(rec.key);
    const tmp = `${file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(rec));
    fs.renameSync(tmp, file);
  };
  const load = (key: string): SessionRecord | undefined => {
    const hit = cache.get(key);
    if (hit) return hit;
    const file = fileOf(key);
    if (!fs.existsSync(file)) return undefined;
    const rec = JSON.parse(fs.readFileSync(file, "utf8")) as SessionRecord;
    rec.pending ??= [];
    rec.history ??= [];
    cache.set(key, rec);
    return rec;
  };
  const getOrCreate = (key: string): SessionRecord => {
    const found = load(key);
    if (found) return found;
    const rec: SessionRecord = { key, createdAt: now().toISOString(), pending: [], history: [] };
    cache.set(key, rec);
    write(rec);
    opts.onCreated?.(key);
    return rec;
  };

  return {
    dir: opts.dir,
    has: (key) => load(key) !== undefined,
    get: (key) => getOrCreate(key),
    enqueue(key, text, meta) {
      const rec = getOrCreate(key);
      const ev: PendingSystemEvent = { id: newId(), ts: now().toISOString(), text, ...(meta ? { meta } : {}) };
      rec.pending.push(ev);
      write(rec);
      return ev;
    },
    consume(key, ids) {
      const rec = getOrCreate(key);
      const drop = new Set(ids);
      const before = rec.pending.length;
      rec.pending = rec.pending.filter((e) => !drop.has(e.id));
      const removed = before - rec.pending.length;
      if (removed > 0) write(rec);
      return removed;
    },
    appendHistory(key, messages) {
      const rec = getOrCreate(key);
      rec.history.push(...messages);
      if (rec.history.length > maxHistory) rec.history.splice(0, rec.history.length - maxHistory);
      write(rec);
    },
    setLastRoute(key, route) {
      const rec = getOrCreate(key);
      rec.lastRoute = { ...route };
      write(rec);
    },
    setHeartbeatRequested(key, reason) {
      const rec = getOrCreate(key);
      if (rec.heartbeatRequested === reason) return;
      if (reason === undefined) delete rec.heartbeatRequested;
      else rec.heartbeatRequested = reason;
      write(rec);
    },
    keys() {
      return fs
        .readdirSync(opts.dir)
        .filter((f) => f.endsWith(".json"))
        .map((f) => (JSON.parse(fs.readFileSync(path.join(opts.dir, f), "utf8")) as SessionRecord).key);
    },
  };
}
