/**
 * One watcher per mailbox: a lock file `<stateDir>/mail/lock-<key>` holding the
 * owner's pid (src/host-contract/pid-lock.ts). A lock whose process is gone (e.g. after
 * `kill -9`, or a reboot that gave its pid to another process) is taken over.
 */
import path from "node:path";
import { takePidLock } from "../../host-contract/pid-lock";
import { mailErrors } from "../mail-error";
import { mailboxKey, mailStateDir, type MailboxIdentity } from "./checkpoint-store";
import { mkdirPrivate } from "../../host-contract/private-fs";

export interface WatcherLock {
  readonly file: string;
  release(): void;
}

/** Takes the lock or throws MailError `watcher_locked` naming the owner's pid. */
export function acquireWatcherLock(stateDir: string, mailbox: MailboxIdentity): WatcherLock {
  const dir = mailStateDir(stateDir);
  mkdirPrivate(dir);
  const file = path.join(dir, `lock-${mailboxKey(mailbox)}`);
  // A second watcher of the mailbox in this process is refused too.
  const got = takePidLock(file, "held");
  if ("lock" in got) return { file, release: () => got.lock.release() };
  if ("owner" in got) throw mailErrors.watcherRunning({ pid: got.owner, user: mailbox.user, host: mailbox.host, mailbox: mailbox.mailbox, file });
  throw mailErrors.watcherLockContended({ file });
}
