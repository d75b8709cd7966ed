/**
 * The journal: every effect the gateway performs, one JSON object per line in
 * `<stateDir>/journal.jsonl`, appended synchronously as the effect happens (so a
 * crash right after cannot lose the line).
 *
 * Appends are whole lines (see `storage/line-file.ts`): when the disk is full an
 * append throws a StorageWriteError (`code` ENOSPC …) and leaves no part of the
 * line behind. At creation a torn last line (a crash or power cut mid-write) is
 * dropped with a warning naming the file.
 *
 * @example
 *   const journal = createJournal({ file: "/state/journal.jsonl" });
 *   journal.append({ type: "heartbeat", reason: "interval" });
 */
import fs from "node:fs";
import path from "node:path";
import type { HostLogger } from "../../host-contract/host-api";
import { dropTornTail, openLineFile } from "../storage/line-file";

/** Entry types and their fields (beyond `ts` and `type`). */
export type JournalRecord =
  | { type: "gateway"; phase: "started" | "stopping" | "stopped"; url?: string; pid?: number }
  | { type: "plugin"; id: string; status: "active" | "broken" | "disabled" | "shadowed"; reason?: string }
  | { type: "system_event"; sessionKey: string; text: string; source?: string; runId?: string }
  | { type: "system_events_consumed"; sessionKey: string; count: number }
  | { type: "heartbeat"; reason: string; pending: number }
  | { type: "agent_turn"; sessionKey: string; model?: string; thinking?: string; status: "ok" | "error" | "timeout"; reply?: string; error?: string; durationMs: number }
  | { type: "delivery"; channel: string; to?: string; text: string; via?: string }
  | { type: "heartbeat_batch_failed"; reason: string; events: number; promptChars: number; status: string; error?: string; nextBudget?: number; skipped?: string; gaveUp?: boolean }
  | { type: "system_event_set_aside"; sessionKey: string; id: string; eventTs: string; chars: number; source?: string };

export type JournalEntry = JournalRecord & { ts: string };

export interface Journal {
  readonly file: string;
  /** Appends one line; throws a StorageWriteError (nothing written) when it cannot be stored. */
  append(record: JournalRecord): JournalEntry;
  close(): void;
}

export interface JournalOptions {
  file: string;
  now?: () => Date;
  /** Where a dropped torn tail is reported. */
  logger?: Pick<HostLogger, "warn">;
}

export function createJournal(opts: JournalOptions): Journal {
  const now = opts.now ?? (() => new Date());
  fs.mkdirSync(path.dirname(opts.file), { recursive: true });
  const dropped = dropTornTail(opts.file);
  if (dropped > 0) {
    opts.logger?.warn(`journal ${opts.file} ended in a torn line (a write cut short by a crash); dropped its ${dropped} bytes`, { file: opts.file, bytes: dropped });
  }
  const out = openLineFile(opts.file, { name: path.basename(opts.file), keepOpen: true });
  return {
    file: opts.file,
    append(record) {
      const entry = { ts: now().toISOString(), ...record } as JournalEntry;
      out.append(JSON.stringify(entry));
      return entry;
    },
    close: () => out.close(),
  };
}
