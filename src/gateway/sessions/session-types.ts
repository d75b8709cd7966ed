/** What a session holds: pending system events and the conversation history. */
import type { LastRoute, SystemEventMeta } from "../../host-contract/host-api";

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
