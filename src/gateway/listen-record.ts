/**
 * Where the gateway running on a state dir listens: `<stateDir>/gateway.url.json`,
 * `{ "pid", "stamp", "url" }`, for the commands that talk to it (`gateway webhooks
 * deliveries|runs …`): its port may not be `gateway.port` (`--port N`, `--port 0`).
 * Written once the gateway listens (atomically, 0600), removed at a clean stop. A record
 * whose process is gone (`kill -9`, a crash, a reboot that gave its pid to another
 * process: the start stamp of src/host-contract/pid-lock.ts) is ignored, so a command
 * then falls back to the config's address.
 *
 * @example
 *   const record = writeListenRecord(stateDir, "http://127.0.0.1:41234");
 *   readRunningGatewayUrl(stateDir); // "http://127.0.0.1:41234"
 *   record.release();
 */
import fs from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "../host-contract/atomic-write";
import { processStamp, recordedProcessRuns } from "../host-contract/pid-lock";
import { PRIVATE_FILE_MODE } from "../host-contract/private-fs";
import { STATE_FILES } from "./paths";

export interface ListenRecord {
  /** Idempotent: removes the file if it is still this process's. */
  release(): void;
}

interface Recorded {
  pid: number;
  stamp: string | undefined;
  url: string;
}

function readRecord(file: string): Recorded | undefined {
  try {
    const data = JSON.parse(fs.readFileSync(file, "utf8")) as Partial<Record<keyof Recorded, unknown>>;
    if (!Number.isInteger(data.pid) || (data.pid as number) <= 0 || typeof data.url !== "string" || !/^https?:\/\/[^\s/]+$/.test(data.url)) return undefined;
    return { pid: data.pid as number, stamp: typeof data.stamp === "string" && data.stamp !== "" ? data.stamp : undefined, url: data.url };
  } catch {
    return undefined;
  }
}

/** Records that this process listens at `url` (`http://host:port`) on `stateDir`. */
export function writeListenRecord(stateDir: string, url: string): ListenRecord {
  const file = path.join(stateDir, STATE_FILES.listenRecord);
  writeFileAtomic(file, `${JSON.stringify({ pid: process.pid, stamp: processStamp(process.pid) ?? "", url })}\n`, PRIVATE_FILE_MODE);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      if (readRecord(file)?.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
}

/** The URL (`http://host:port`) of the gateway that runs on `stateDir` now; undefined when none does (or none recorded it). */
export function readRunningGatewayUrl(stateDir: string): string | undefined {
  const record = readRecord(path.join(stateDir, STATE_FILES.listenRecord));
  return record && recordedProcessRuns(record) ? record.url : undefined;
}
