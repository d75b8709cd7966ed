/**
 * One watcher per mailbox: a lock file `<stateDir>/mail/lock-<key>` holding the
 * owner's pid. A lock whose process is gone (e.g. after `kill -9`) is taken over.
 */
import fs from "node:fs";
import path from "node:path";
import { processAlive } from "../../host-contract/process-alive";
import { mailErrors } from "../mail-error";
import { mailboxKey, mailStateDir, type MailboxIdentity } from "./checkpoint-store";

/** Lock files held by this process (a second watcher in the same process is refused too). */
const heldHere = new Set<string>();

export interface WatcherLock {
  readonly file: string;
  release(): void;
}

/** Takes the lock or throws MailError `watcher_locked` naming the owner's pid. */
export function acquireWatcherLock(stateDir: string, mailbox: MailboxIdentity): WatcherLock {
  const dir = mailStateDir(stateDir);
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `lock-${mailboxKey(mailbox)}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      heldHere.add(file);
      return {
        file,
        release() {
          if (!heldHere.delete(file)) return;
          fs.rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const pid = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10);
    const held = Number.isInteger(pid) && pid > 0 && (pid === process.pid ? heldHere.has(file) : processAlive(pid));
    if (held) {
      throw mailErrors.watcherRunning({ pid, user: mailbox.user, host: mailbox.host, mailbox: mailbox.mailbox, file });
    }
    fs.rmSync(file, { force: true });
  }
  throw mailErrors.watcherLockContended({ file });
}
