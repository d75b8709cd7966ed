/**
 * The journal: every effect the gateway performs, one JSON object per line in
 * `<stateDir>/journal.jsonl`, appended synchronously as the effect happens (so a
 * crash right after cannot lose the line).
 *
 * @example
 *   const journal = createJournal({ file: "/state/journal.jsonl" });
 *   journal.append({ type: "heartbeat", reason: "interval" });
 */
import fs from "node:fs";
import path from "node:path";

/** Entry types and their fields (beyond `ts` and `type`). */
export type JournalRecord =
  | { type: "gateway"; phase: "started" | "stopping" | "stopped"; url?: string; pid?: number }
  | { type: "plugin"; id: string; status: "active" | "broken" | "disabled" | "shadowed"; reason?: string }
  | { type: "system_event"; sessionKey: string; text: string; source?: string }
  | { type: "system_events_consumed"; sessionKey: string; count: number }
  | { type: "heartbeat"; reason: string; pending: number }
  | { type: "agent_turn"; sessionKey: string; model?: string; thinking?: string; status: "ok" | "error" | "timeout"; reply?: string; error?: string; durationMs: number }
  | { type: "delivery"; channel: string; to?: string; text: string; via?: string }
  | { type: "heartbeat_batch_failed"; reason: string; events: number; promptChars: number; status: string; error?: string; nextBudget?: number; skipped?: string; gaveUp?: boolean }
  | { type: "system_event_set_aside"; sessionKey: string; id: string; eventTs: string; chars: number; source?: string };

export type JournalEntry = JournalRecord & { ts: string };

export interface Journal {
  readonly file: string;
  append(record: JournalRecord): JournalEntry;
  close(): void;
}

export interface JournalOptions {
  file: string;
  now?: () => Date;
}

export function createJournal(opts: JournalOptions): Journal {
  const now = opts.now ?? (() => new Date());
  fs.mkdirSync(path.dirname(opts.file), { recursive: true });
  let fd: number | undefined = fs.openSync(opts.file, "a");
  return {
    file: opts.file,
    append(record) {
      const entry = { ts: now().toISOString(), ...record } as JournalEntry;
      if (fd === undefined) fd = fs.openSync(opts.file, "a");
      fs.writeSync(fd, `${JSON.stringify(entry)}\n`);
      return entry;
    },
    close() {
      if (fd !== undefined) fs.closeSync(fd);
      fd = undefined;
    },
  };
}
