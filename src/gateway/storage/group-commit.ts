/**
 * Group commit of the gateway's line files: the lines staged during one turn of
 * the event loop (a session log's events and their journal lines, from every
 * request of that turn) are written with one write per file at the end of the
 * turn, and each stager's promise settles only then — so a hook is answered
 * only once its lines are stored, yet a burst of requests costs one write (and,
 * with "os" durability, one `fdatasync`) per file instead of one per request.
 *
 * A batch is stored whole or not at all: when a file's write fails (disk full,
 * I/O error), the files already written in this batch are cut back to their
 * length before it, every staged change's `undo` runs (newest first, reverting
 * its in-memory effect), and every promise rejects with the StorageWriteError.
 *
 * Synchronous appends elsewhere call `flush()` first, so lines reach each file
 * in the order their changes were made.
 *
 * @example
 *   const commit = createGroupCommit();
 *   await commit.stage([[sessionLog, line], [journalFile, journalLine]], () => forget(ev));
 */
import type { LineFile } from "./line-file";

export interface GroupCommit {
  /**
   * Stages one change: its lines (per file, in order) and how to revert its
   * in-memory effect if the batch cannot be stored. Resolves once stored.
   */
  stage(lines: ReadonlyArray<readonly [LineFile, string]>, undo?: () => void): Promise<void>;
  /** Writes what is staged now, synchronously. Never throws: a failure goes to the stagers' promises. */
  flush(): void;
  /** Lines staged and not yet written. */
  readonly staged: number;
}

interface Staged {
  undo?: () => void;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export function createGroupCommit(): GroupCommit {
  /** Lines per file, in staging order (a Map keeps the files in first-staged order). */
  let files = new Map<LineFile, string[]>();
  let changes: Staged[] = [];
  let lineCount = 0;
  let scheduled = false;

  const flush = (): void => {
    if (changes.length === 0) return;
    const batch = files;
    const settled = changes;
    files = new Map();
    changes = [];
    lineCount = 0;
    const written: Array<[LineFile, number]> = [];
    try {
      for (const [file, lines] of batch) written.push([file, file.appendMany(lines)]);
    } catch (e) {
      for (const [file, before] of written.reverse()) {
        try {
          file.truncate(before);
        } catch {
          // The file remembers the cut it owes and makes it before its next append (line-file.ts).
        }
      }
      for (const c of [...settled].reverse()) c.undo?.();
      for (const c of settled) c.reject(e);
      return;
    }
    for (const c of settled) c.resolve();
  };

  return {
    stage(lines, undo) {
      return new Promise<void>((resolve, reject) => {
        for (const [file, line] of lines) {
          const list = files.get(file);
          if (list) list.push(line);
          else files.set(file, [line]);
          lineCount++;
        }
        changes.push({ undo, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          // After the turn's I/O callbacks: every request parsed in this turn joins the batch.
          setImmediate(() => {
            scheduled = false;
            flush();
          });
        }
      });
    },
    flush,
    get staged() {
      return lineCount;
    },
  };
}
