/**
 * The journal's lines (host API 1.5): every effect the embedded gateway performs,
 * one JSON object per line (src/gateway/journal/journal.ts writes them). A host that
 * keeps such a journal offers its newest entries to the plugin's inspector
 * (`HostRuntime.journal`), which shows the effects of one delivery from them; the
 * type lives here because both sides read it.
 */

/** Entry types and their fields (beyond `ts` and `type`). */
export type JournalRecord =
  | { type: "gateway"; phase: "started" | "stopping" | "stopped"; url?: string; pid?: number }
  | { type: "plugin"; id: string; status: "active" | "broken" | "disabled" | "shadowed"; reason?: string }
  | { type: "system_event"; sessionKey: string; text: string; source?: string; runId?: string }
  | { type: "system_events_consumed"; sessionKey: string; count: number }
  | { type: "heartbeat"; reason: string; pending: number }
  | {
      type: "agent_turn";
      sessionKey: string;
      model?: string;
      thinking?: string;
      /** The turn's end (host-api.ts RunTurnResult; the embedded gateway's turns never end `unavailable`). */
      status: "ok" | "error" | "timeout" | "unavailable";
      reply?: string;
      error?: string;
      durationMs: number;
    }
  | { type: "delivery"; channel: string; to?: string; text: string; via?: string }
  | {
      type: "heartbeat_batch_failed";
      reason: string;
      events: number;
      promptChars: number;
      status: string;
      error?: string;
      nextBudget?: number;
      skipped?: string;
      gaveUp?: boolean;
    }
  | { type: "system_event_set_aside"; sessionKey: string; id: string; eventTs: string; chars: number; source?: string };

export type JournalEntry = JournalRecord & { ts: string };
