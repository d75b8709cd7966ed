/**
 * One gateway per state dir: `<stateDir>/gateway.lock` holds the pid of the gateway
 * running on it. A second `gateway start` on the same state dir — typically on another
 * port, after the busy-port line suggested `--port N` while the first gateway still ran —
 * would share the first one's plugin stores, main session and journal, and its start
 * would recover the first one's running runs as interrupted. It stops with one line
 * instead. A lock whose process is gone (after `kill -9`) is taken over, and so is one
 * this process holds (a gateway started again in the same process, as in tests).
 */
import fs from "node:fs";
import path from "node:path";
import { processAlive } from "../host-contract/process-alive";
import { createErrorCatalogue } from "../host-contract/error-catalogue";
import { STATE_FILES } from "./paths";

export const STATE_DIR_LOCK_CATALOGUE = {
  stateDirInUse: {
    message: "the state dir {dir} is in use by another gateway (pid {pid}); stop that one first, or give this one its own gateway.stateDir",
  },
} as const;

/** The start cannot use the state dir (exit 1, one line; not a config error). */
export class StateDirInUseError extends Error {
  override readonly name = "StateDirInUseError";
}

const lockErrors = createErrorCatalogue(STATE_DIR_LOCK_CATALOGUE, ({ message }) => new StateDirInUseError(message));

export interface StateDirLock {
  /** Idempotent: removes the lock file if it is still this process's. */
  release(): void;
}

function lockOwnerPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(fs.readFileSync(file, "utf8").trim(), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Takes the lock of `stateDir` (which must exist) or throws StateDirInUseError naming the owner's pid. */
export function acquireStateDirLock(stateDir: string): StateDirLock {
  const file = path.join(stateDir, STATE_FILES.gatewayLock);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      fs.writeFileSync(file, `${process.pid}\n`, { flag: "wx", mode: 0o600 });
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          if (lockOwnerPid(file) === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
    }
    const pid = lockOwnerPid(file);
    if (pid !== undefined && pid !== process.pid && processAlive(pid)) throw lockErrors.stateDirInUse({ dir: stateDir, pid });
    fs.rmSync(file, { force: true });
  }
  throw lockErrors.stateDirInUse({ dir: stateDir, pid: lockOwnerPid(file) ?? "unknown" });
}
