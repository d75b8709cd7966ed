/**
 * WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the
 * commit that passes 1,000 pages of log, on the thread that commits: every few hundred
 * ledger rows, and at every 4 MiB body, one request's commit also copied the whole log
 * into the database file (about two thirds of a 4 MiB row's 17 ms). Here a worker
 * thread with a connection of its own runs `PRAGMA wal_checkpoint(PASSIVE)` every 50 ms
 * while there is log to copy (backing off to once a second when there is none), and the
 * request path's connection stops checkpointing (`wal_autocheckpoint = 0`) once the
 * worker has opened the database.
 *
 * A PASSIVE checkpoint never takes the write lock and never waits: writers go on while
 * it copies, and SQLite keeps the file consistent whatever is killed when (a crash
 * mid-checkpoint leaves the log to be checkpointed again). If the worker cannot start
 * or stops, the connection checkpoints by itself again (`wal_autocheckpoint = 1000`,
 * SQLite's default) and a warning says so; a failed checkpoint (a full disk) is
 * logged at most once a minute and tried again. `stop()` waits (at most 2 s) for the
 * worker to close its connection, so the owner's closing checkpoint runs alone.
 *
 * The worker's code is a short script (below) that opens the file with the process's
 * driver: it runs the same from the built package, from TypeScript sources and inside
 * a host.
 *
 * @example
 *   const checkpoints = startCheckpointer({ db, file, logger });
 *   // … on close:
 *   checkpoints.stop();
 */
import { Worker } from "node:worker_threads";
import type { ModuleLogger } from "../core/logger";
import { betterSqlite3Path } from "./driver-better-sqlite3";
import type { SqliteDatabase } from "./sqlite-types";

export interface Checkpointer {
  /** Stops the worker and waits (at most 2 s) until its connection is closed. Idempotent. */
  stop(): void;
}

export interface CheckpointerOptions {
  db: SqliteDatabase;
  file: string;
  logger: ModuleLogger;
  /** Period while there is log to copy; default 50 ms (backs off to 20×). */
  intervalMs?: number;
}

/** The connection's own checkpoints again (SQLite's default threshold, in pages). */
const AUTOCHECKPOINT_PAGES = 1000;
const STOP_WAIT_MS = 2000;
const FAILURE_LOG_MS = 60_000;

/** Flag states shared with the worker: running, then closed by the worker. */
const RUNNING = 0;
const CLOSED = 1;

const WORKER_SOURCE = `
"use strict";
(() => {
const { parentPort, workerData } = require("node:worker_threads");
const { file, driver, modulePath, intervalMs, flag } = workerData;
const closed = new Int32Array(flag);
const done = () => { Atomics.store(closed, 0, ${CLOSED}); Atomics.notify(closed, 0); };
let db;
let checkpoint;
try {
  if (driver === "node:sqlite") {
    const { DatabaseSync } = require("node:sqlite");
    db = new DatabaseSync(file);
  } else {
    const Database = require(modulePath);
    db = new Database(file, { fileMustExist: true });
  }
  checkpoint = db.prepare("PRAGMA wal_checkpoint(PASSIVE)");
} catch (e) {
  try { if (db) db.close(); } catch {}
  done();
  parentPort.postMessage({ fatal: String(e && e.message) });
  parentPort.close();
  return;
}
let wait = intervalMs;
let lastLog = -1;
let timer;
const tick = () => {
  try {
    const r = checkpoint.get();
    // Log written since the last look: come back soon; none: back off, up to 20 periods.
    wait = r.log !== lastLog ? intervalMs : Math.min(wait * 2, intervalMs * 20);
    lastLog = r.log;
  } catch (e) {
    parentPort.postMessage({ failed: String(e && e.message), code: e && e.code });
    wait = intervalMs * 20;
  }
  timer = setTimeout(tick, wait);
};
parentPort.on("message", (m) => {
  if (m !== "stop") return;
  clearTimeout(timer);
  try { db.close(); } catch {}
  done();
  parentPort.close();
});
parentPort.postMessage({ ready: true });
timer = setTimeout(tick, intervalMs);
})();
`;

export function startCheckpointer(options: CheckpointerOptions): Checkpointer {
  const { db, file, logger } = options;
  const flag = new SharedArrayBuffer(4);
  const closed = new Int32Array(flag);
  let stopped = false;
  /** Checkpoints were handed back to the connection (said once: a worker that failed to start also exits). */
  let handedBack = false;
  let lastFailureLog = 0;
  const selfCheckpoint = (reason: string, error?: string): void => {
    if (stopped || handedBack || !db.open) return;
    handedBack = true;
    db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    logger.warn(`background WAL checkpoints ${reason}; the database connection checkpoints by itself again`, error ? { error } : {});
  };
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      file,
      driver: db.driver,
      modulePath: db.driver === "better-sqlite3" ? betterSqlite3Path() : undefined,
      intervalMs: options.intervalMs ?? 50,
      flag,
    },
  });
  worker.unref();
  worker.on("message", (m: { ready?: boolean; fatal?: string; failed?: string; code?: string }) => {
    if (m.ready && !stopped && db.open) db.pragma("wal_autocheckpoint = 0");
    if (m.fatal !== undefined) selfCheckpoint("could not start", m.fatal);
    if (m.failed !== undefined && Date.now() - lastFailureLog >= FAILURE_LOG_MS) {
      lastFailureLog = Date.now();
      logger.warn("background WAL checkpoint failed; it is tried again (the log is kept meanwhile)", { error: m.failed, code: m.code });
    }
  });
  worker.on("error", (e) => selfCheckpoint("stopped", e.message));
  worker.on("exit", () => {
    if (!stopped) selfCheckpoint("stopped");
  });
  return {
    stop() {
      if (stopped) return;
      stopped = true;
      worker.postMessage("stop");
      // The worker closes its connection on its own thread; wait for it so the owner's closing checkpoint is alone.
      Atomics.wait(closed, 0, RUNNING, STOP_WAIT_MS);
      void worker.terminate();
    },
  };
}
