/**
 * A session in memory: its record, its position in the change log, its log file
 * and the dedupe index — and how one logged operation changes them (`applyOp`,
 * shared by live changes and by the replay of the log at load).
 */
import type { LineFile } from "../storage/line-file";
import { createDedupeIndex, dedupeKeyOf, type DedupeIndex } from "./dedupe-index";
import type { SessionOp } from "./session-log";
import type { SessionRecord } from "./session-types";

/** How many dedupe keys of consumed events a session remembers. */
export const MAX_RECENT_DEDUPE_KEYS = 1000;

export interface SessionState {
  /** The session itself (key, pending events, history, route): what its snapshot holds. */
  session: SessionRecord;
  /** Sequence number of the last logged operation (or of the snapshot). */
  seq: number;
  /** Entries on disk (snapshot's events + messages, plus each logged operation's weight). */
  stored: number;
  /** Snapshot file (absolute) and how messages name it (state-dir relative). */
  file: string;
  name: string;
  /** The session's change log. */
  log: LineFile;
  dedupe: DedupeIndex;
}

export function newSessionState(session: SessionRecord, seq: number, file: string, name: string, log: LineFile): SessionState {
  return { session, seq, stored: live(session), file, name, log, dedupe: createDedupeIndex(session) };
}

export const weight = (op: SessionOp): number => (op.op === "history" ? op.messages.length : 1);
export const live = (session: SessionRecord): number => session.pending.length + session.history.length;

/** Applies one operation to the session in memory; returns how many events it removed. */
export function applyOp(st: SessionState, op: SessionOp, maxHistory: number): number {
  const session = st.session;
  switch (op.op) {
    case "create":
      return 0;
    case "enqueue":
      session.pending.push(op.ev);
      st.dedupe.added(op.ev);
      return 0;
    case "consume": {
      const drop = new Set(op.ids);
      const kept = [];
      const consumedKeys: string[] = [];
      for (const e of session.pending) {
        if (!drop.has(e.id)) {
          kept.push(e);
          continue;
        }
        st.dedupe.removed(e);
        const k = dedupeKeyOf(e);
        if (k !== undefined) consumedKeys.push(k);
      }
      if (consumedKeys.length > 0) {
        const all = [...(session.recentDedupeKeys ?? []), ...consumedKeys];
        const cut = Math.max(0, all.length - MAX_RECENT_DEDUPE_KEYS);
        st.dedupe.recentChanged(consumedKeys, all.slice(0, cut));
        session.recentDedupeKeys = all.slice(cut);
      }
      const removed = session.pending.length - kept.length;
      session.pending = kept;
      return removed;
    }
    case "history":
      session.history.push(...op.messages);
      if (session.history.length > maxHistory) session.history.splice(0, session.history.length - maxHistory);
      return 0;
    case "route":
      session.lastRoute = { ...op.route };
      return 0;
    case "heartbeat":
      if (op.reason === null) delete session.heartbeatRequested;
      else session.heartbeatRequested = op.reason;
      return 0;
  }
}

/** Reverts a staged enqueue whose line could not be stored (the newest first, so it is at or near the end). */
export function revertEnqueue(st: SessionState, id: string, seqBefore: number): void {
  let i = st.session.pending.length - 1;
  while (i >= 0 && st.session.pending[i]!.id !== id) i--;
  if (i >= 0) {
    st.dedupe.removed(st.session.pending[i]!);
    st.session.pending.splice(i, 1);
  }
  st.seq = seqBefore;
  st.stored -= 1;
}
