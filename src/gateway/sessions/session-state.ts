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
  rec: SessionRecord;
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

export function newSessionState(rec: SessionRecord, seq: number, file: string, name: string, log: LineFile): SessionState {
  return { rec, seq, stored: live(rec), file, name, log, dedupe: createDedupeIndex(rec) };
}

export const weight = (op: SessionOp): number => (op.op === "history" ? op.messages.length : 1);
export const live = (rec: SessionRecord): number => rec.pending.length + rec.history.length;

/** Applies one operation to the session in memory; returns how many events it removed. */
export function applyOp(st: SessionState, op: SessionOp, maxHistory: number): number {
  const rec = st.rec;
  switch (op.op) {
    case "create":
      return 0;
    case "enqueue":
      rec.pending.push(op.ev);
      st.dedupe.added(op.ev);
      return 0;
    case "consume": {
      const drop = new Set(op.ids);
      const kept = [];
      const consumedKeys: string[] = [];
      for (const e of rec.pending) {
        if (!drop.has(e.id)) {
          kept.push(e);
          continue;
        }
        st.dedupe.removed(e);
        const k = dedupeKeyOf(e);
        if (k !== undefined) consumedKeys.push(k);
      }
      if (consumedKeys.length > 0) {
        const all = [...(rec.recentDedupeKeys ?? []), ...consumedKeys];
        const cut = Math.max(0, all.length - MAX_RECENT_DEDUPE_KEYS);
        st.dedupe.recentChanged(consumedKeys, all.slice(0, cut));
        rec.recentDedupeKeys = all.slice(cut);
      }
      const removed = rec.pending.length - kept.length;
      rec.pending = kept;
      return removed;
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
}

/** Reverts a staged enqueue whose line could not be stored (the newest first, so it is at or near the end). */
export function revertEnqueue(st: SessionState, id: string, seqBefore: number): void {
  let i = st.rec.pending.length - 1;
  while (i >= 0 && st.rec.pending[i]!.id !== id) i--;
  if (i >= 0) {
    st.dedupe.removed(st.rec.pending[i]!);
    st.rec.pending.splice(i, 1);
  }
  st.seq = seqBefore;
  st.stored -= 1;
}
