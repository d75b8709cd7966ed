/** The message of a heartbeat turn: the drained system events, oldest first. */
import type { PendingSystemEvent } from "../sessions/session-store";
import { HEARTBEAT_TOKEN } from "../../host-contract/heartbeat-ack";

export function heartbeatPrompt(reason: string, events: readonly PendingSystemEvent[]): string {
  const lines = events.map((e) => `- [${e.ts}] ${e.text}`);
  return [
    `Heartbeat (${reason}). System events since the last heartbeat, oldest first:`,
    ...lines,
    "",
    `If nothing here needs the user's attention, reply with exactly ${HEARTBEAT_TOKEN}.`,
  ].join("\n");
}
