/**
 * The one lock-file rule of the gateway's state dir and the mail watcher: a file created
 * exclusively (`wx`, 0600) that holds its owner's pid and, where the system tells it, the
 * owner's start stamp (Linux: the boot id and the process's start time, from /proc).
 *
 * A lock is held while its owner runs. One whose owner is gone is taken over: after a
 * `kill -9`, and also after a power cut or a reboot, or a container restart, when its pid
 * now belongs to another process — a pid alone would then keep a stale lock for ever and
 * refuse every start; the start stamp tells the two apart. Where there is no stamp
 * (no /proc), a live pid counts as the owner.
 *
 * @example
 *   const got = takePidLock(file, "take");
 *   if ("owner" in got) throw new Error(`in use by pid ${got.owner}`);
 *   got.lock.release();
 */
import fs from "node:fs";

/** Lock files this process holds. */
const heldHere = new Set<string>();

/** Whether a process with this pid exists (signal 0; EPERM means it exists under another user). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** What tells this run of `pid` from a later process given the same pid: `<boot id>/<start time>` (Linux); undefined where unknown. */
export function processStamp(pid: number): string | undefined {
  try {
    const boot = fs.readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim();
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and ')': the fields after the last ')' start at field 3 (state); starttime is field 22.
    const start = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
    return boot !== "" && start !== undefined && /^\d+$/.test(start) ? `${boot}/${start}` : undefined;
  } catch {
    return undefined;
  }
}

interface LockOwner {
  pid: number;
  stamp: string | undefined;
}

function readOwner(file: string): LockOwner | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const [pidLine = "", stampLine = ""] = text.split("\n");
  const pid = Number.parseInt(pidLine.trim(), 10);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  return { pid, stamp: stampLine.trim() === "" ? undefined : stampLine.trim() };
}

/**
 * Whether the process that recorded `pid` and `stamp` (its `processStamp` then) still runs: its
 * pid is alive and, when both stamps are known, with the same start stamp — the rule that tells
 * a lock's (or any pid file's) live owner from a dead one whose pid was given to another process.
 */
export function recordedProcessRuns(owner: { pid: number; stamp: string | undefined }): boolean {
  if (!processAlive(owner.pid)) return false;
  if (owner.stamp === undefined) return true;
  const now = processStamp(owner.pid);
  return now === undefined || now === owner.stamp;
}

export interface PidLock {
  /** Idempotent: removes the file if this process still holds it. */
  release(): void;
}

/**
 * Takes `file` (its directory must exist), or answers the pid of the process that holds it;
 * `contended` when other processes kept taking it in between. `sameProcess` says what a lock
 * this process holds already means: `"take"` (a gateway started again in the same process,
 * as tests do) or `"held"` (a second watcher of one mailbox in one process is refused).
 */
export function takePidLock(file: string, sameProcess: "take" | "held"): { lock: PidLock } | { owner: number } | { contended: true } {
  const stamp = processStamp(process.pid);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n${stamp ?? ""}\n`, { flag: "wx", mode: 0o600 });
      heldHere.add(file);
      return {
        lock: {
          release() {
            if (!heldHere.delete(file)) return;
            if (readOwner(file)?.pid === process.pid) fs.rmSync(file, { force: true });
          },
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const owner = readOwner(file);
    if (owner !== undefined) {
      const held = owner.pid === process.pid ? sameProcess === "held" && heldHere.has(file) : recordedProcessRuns(owner);
      if (held) return { owner: owner.pid };
    }
    heldHere.delete(file);
    fs.rmSync(file, { force: true });
  }
  return { contended: true };
}
