/** What a session holds: pending system events and the conversation history. */
import type { SystemEventMeta } from "../../host-contract/host-api";

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
