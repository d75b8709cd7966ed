/**
 * Whether a process with this pid exists (signal 0; EPERM means it exists under another
 * user): how the lock files of the gateway's state dir and of the mail watcher tell a
 * live owner from one that is gone (after `kill -9`).
 *
 * @example processAlive(process.pid) // true
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}
