/**
 * One gateway per state dir: `<stateDir>/gateway.lock` holds the pid of the gateway
 * running on it. A second `gateway start` on the same state dir — typically on another
 * port, after the busy-port line suggested `--port N` while the first gateway still ran —
 * would share the first one's plugin stores, main session and journal, and its start
 * would recover the first one's running runs as interrupted. It stops with one line
 * instead. A lock whose process is gone (after `kill -9`, a power cut or a reboot, even when
 * its pid now belongs to another process: src/host-contract/pid-lock.ts) is taken over, and
 * so is one this process holds (a gateway started again in the same process, as in tests).
 */
import path from "node:path";
import { takePidLock } from "../host-contract/pid-lock";
import { createErrorCatalogue } from "../host-contract/error-catalogue";
import { STATE_FILES } from "./paths";

export const STATE_DIR_LOCK_CATALOGUE = {
  stateDirInUse: {
    message:
      "the state dir {dir} is in use by another gateway (pid {pid}); stop that one first, or give this one its own gateway.stateDir (if no gateway runs there, delete {file})",
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

/** Takes the lock of `stateDir` (which must exist) or throws StateDirInUseError naming the owner's pid. */
export function acquireStateDirLock(stateDir: string): StateDirLock {
  const file = path.join(stateDir, STATE_FILES.gatewayLock);
  const got = takePidLock(file, "take");
  if ("lock" in got) return got.lock;
  throw lockErrors.stateDirInUse({ dir: stateDir, pid: "owner" in got ? got.owner : "unknown", file });
}
