/**
 * The watcher's persisted position in one mailbox: the highest UID whose batch the
 * gateway accepted (2xx) — or permanently rejected — under one UIDVALIDITY, plus the
 * batch being delivered right now ("pending"), so a restart re-sends exactly the same
 * body with the same Idempotency-Key instead of building a different batch.
 *
 * One JSON file per host/port/user/mailbox in `<stateDir>/mail/`, written atomically.
 */
import fs from "node:fs";
import path from "node:path";
import { createHash } from "node:crypto";
import { writeFileAtomic } from "../../host-contract/atomic-write";
import type { MailBatch } from "./batch";
import { mailErrors } from "../mail-error";

export interface MailboxIdentity {
  host: string;
  port: number;
  user: string;
  mailbox: string;
}

export interface Checkpoint extends MailboxIdentity {
  version: 1;
  /** UIDVALIDITY of the mailbox, as a decimal string (it is a 32-bit unsigned value). */
  uidValidity: string;
  /** Every message with UID ≤ lastUid has been handled. */
  lastUid: number;
  /** The batch being delivered; cleared (and lastUid advanced) once the gateway answered. */
  pending?: MailBatch;
  updatedAt: string;
}

export interface CheckpointStore {
  /** Path of the checkpoint file (for messages). */
  readonly file: string;
  load(): Checkpoint | undefined;
  save(cp: Omit<Checkpoint, "version" | "updatedAt" | keyof MailboxIdentity>): Checkpoint;
}

/** Short stable key of a mailbox: the file name of its checkpoint and lock. */
export function mailboxKey(id: MailboxIdentity): string {
  const h = createHash("sha256")
    .update([id.host.toLowerCase(), String(id.port), id.user, id.mailbox].join("\n"))
    .digest("hex");
  return h.slice(0, 24);
}

/** Directory holding the mail watcher's state inside the plugin state dir. */
export function mailStateDir(stateDir: string): string {
  return path.join(stateDir, "mail");
}

export function createCheckpointStore(opts: { stateDir: string; mailbox: MailboxIdentity; now?: () => Date }): CheckpointStore {
  const now = opts.now ?? (() => new Date());
  const file = path.join(mailStateDir(opts.stateDir), `checkpoint-${mailboxKey(opts.mailbox)}.json`);
  return {
    file,
    load() {
      let text: string;
      try {
        text = fs.readFileSync(file, "utf8");
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw e;
      }
      // A MailError the watcher treats as fatal: re-reading the same file cannot help.
      const unknown = () => mailErrors.checkpointUnknownFormat({ file });
      let cp: Checkpoint | null;
      try {
        cp = JSON.parse(text) as Checkpoint | null;
      } catch {
        throw unknown();
      }
      if (cp === null || typeof cp !== "object" || cp.version !== 1 || typeof cp.lastUid !== "number" || typeof cp.uidValidity !== "string") throw unknown();
      return cp;
    },
    save(state) {
      const cp: Checkpoint = { version: 1, ...opts.mailbox, ...state, updatedAt: now().toISOString() };
      if (cp.pending === undefined) delete cp.pending;
      writeFileAtomic(file, JSON.stringify(cp, null, 2) + "\n");
      return cp;
    },
  };
}
