/** What a session holds: pending system events and the conversation history. */
import type { HostLogger, LastRoute, SystemEventMeta } from "../../host-contract/host-api";
import type { GroupCommit } from "../storage/group-commit";

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
  /** Dedupe keys of the most recently consumed events (bounded), so a re-sent event is still recognised. */
  recentDedupeKeys?: string[];
}

/** Options of `createSessionStore` (session-store.ts). */
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
  /** The group commit staged enqueues join (shared with the journal); default a private one. */
  commit?: GroupCommit;
  /** Sessions whose log keeps its descriptor open (hot ones, e.g. the main session); default none. */
  keepOpen?: (key: string) => boolean;
  /** `fdatasync` every write ("os" durability). Default false. */
  sync?: boolean;
}
