/**
 * The journal: every effect the gateway performs, one JSON object per line in
 * `<stateDir>/journal.jsonl`, appended synchronously as the effect happens (so a
 * crash right after cannot lose the line).
 *
 * Lines of a hook's change (a system event) are staged in the group commit
 * (`staged`) and written with the turn's batch, before the hook is answered.
 *
 * Appends are whole lines (see `storage/line-file.ts`): when the disk is full an
 * append throws a StorageWriteError (`code` ENOSPC …) and leaves no part of the
 * line behind. At creation a torn last line (a crash or power cut mid-write) is
 * dropped with a warning naming the file; a journal that cannot be opened for
 * writing (a directory in its place, no permission) fails with the file and the fix.
 *
 * Bounded (`maxBytes`, `gateway.journal.maxBytes`): a write that would take
 * `journal.jsonl` past it first renames the file to `journal.1.jsonl` (replacing
 * the previous one) and starts a new `journal.jsonl`, so the journal keeps about
 * 2 × maxBytes on disk. The rotation happens inside the line file's write (see
 * `storage/line-file.ts` for the crash and full-disk cases): staged lines hold the
 * journal's one LineFile, never a descriptor, so a batch the group commit writes
 * after a rotation lands whole in the new file. A start with `journal.jsonl`
 * missing (a crash right after the rename) simply creates it.
 *
 * @example
 *   const journal = createJournal({ file: "/state/journal.jsonl" });
 *   journal.append({ type: "heartbeat", reason: "interval" });
 */
import fs from "node:fs";
import path from "node:path";
import type { HostLogger } from "../../host-contract/host-api";
import { dropTornTail, openLineFile, type LineFile } from "../storage/line-file";
import { createGroupCommit, type GroupCommit } from "../storage/group-commit";
import { DEFAULTS } from "../config/gateway-config";
import { mkdirPrivate } from "../../host-contract/private-fs";
import type { JournalEntry, JournalRecord } from "../../host-contract/journal";

export type { JournalEntry, JournalRecord } from "../../host-contract/journal";

export interface Journal {
  readonly file: string;
  /** Appends one line (after what is staged in the group commit); throws a StorageWriteError (nothing written) when it cannot be stored. */
  append(record: JournalRecord): JournalEntry;
  /** The line of `record` and the file, for a change staged in the group commit (`commit.stage([[…], journal.staged(record)])`). */
  staged(record: JournalRecord): readonly [LineFile, string];
  close(): void;
}

export interface JournalOptions {
  file: string;
  now?: () => Date;
  /** Where a dropped torn tail is reported. */
  logger?: Pick<HostLogger, "warn">;
  /** The group commit staged lines join (shared with the session store); default a private one. */
  commit?: GroupCommit;
  /** `fdatasync` every write ("os" durability). Default false. */
  sync?: boolean;
  /** Size at which `journal.jsonl` is rotated to `journal.1.jsonl`; default `gateway.journal.maxBytes`'s (64 MiB). */
  maxBytes?: number;
}

/** The previous journal beside `file`: `journal.jsonl` → `journal.1.jsonl`. */
export function previousJournalFile(file: string): string {
  return path.join(path.dirname(file), `${path.basename(file, ".jsonl")}.1.jsonl`);
}

export function createJournal(opts: JournalOptions): Journal {
  const now = opts.now ?? (() => new Date());
  mkdirPrivate(path.dirname(opts.file));
  let dropped: number;
  try {
    dropped = dropTornTail(opts.file);
  } catch (e) {
    throw new Error(
      `the journal ${opts.file} cannot be opened for writing (${(e as Error).message}). Make it a writable file, or move it aside to start a new journal (the old one is only a record: no accepted work is lost).`,
      { cause: e },
    );
  }
  if (dropped > 0) {
    opts.logger?.warn(`journal ${opts.file} ended in a torn line (a write cut short by a crash); dropped its ${dropped} bytes`, {
      file: opts.file,
      bytes: dropped,
    });
  }
  const previous = previousJournalFile(opts.file);
  const rotate = {
    maxBytes: opts.maxBytes ?? DEFAULTS.journalMaxBytes,
    to: previous,
    onError: (e: Error) =>
      opts.logger?.warn(
        `journal ${opts.file} could not be rotated to ${path.basename(previous)}; it grows past its bound until a rotation succeeds: ${e.message}`,
        { file: opts.file },
      ),
  };
  const out = openLineFile(opts.file, { name: path.basename(opts.file), keepOpen: true, sync: opts.sync, rotate });
  const commit = opts.commit ?? createGroupCommit();
  return {
    file: opts.file,
    append(record) {
      commit.flush();
      const entry = { ts: now().toISOString(), ...record } as JournalEntry;
      out.append(JSON.stringify(entry));
      return entry;
    },
    staged: (record) => [out, JSON.stringify({ ts: now().toISOString(), ...record })],
    close: () => out.close(),
  };
}
