/** Helpers of the crash suites: HTTP against a gateway child process, and its plugin database. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openSqlite } from "../../src/store/sqlite-driver";
import type { GatewayProcess } from "../helpers/gateway-process";

export const CRASH_TOKEN = "crash-suite-hook-token-0123456789";

export interface HttpResult {
  status: number;
  headers: Headers;
  body: Record<string, unknown> | undefined;
}

/** POSTs JSON; rejects when the connection fails (e.g. the gateway was killed). */
export async function postJson(gw: GatewayProcess, sub: string, body: unknown, headers: Record<string, string> = {}): Promise<HttpResult> {
  const res = await fetch(`${gw.baseUrl}/hooks/${sub}`, {
    method: "POST",
    headers: { authorization: `Bearer ${CRASH_TOKEN}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** GET {path}/runs/<id> with the token. */
export async function getRun(gw: GatewayProcess, id: string): Promise<HttpResult> {
  const res = await fetch(`${gw.baseUrl}/hooks/runs/${id}`, {
    headers: { authorization: `Bearer ${CRASH_TOKEN}` },
    signal: AbortSignal.timeout(15_000),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

/** The plugin's database file in a gateway state dir (`<stateDir>/data/inbound-webhooks/`). */
export function pluginDatabaseFile(stateDir: string): string {
  return path.join(stateDir, "data", "inbound-webhooks", "inbound-webhooks.sqlite");
}

/** Runs a read-only query on the plugin database (the gateway may be stopped or running). */
export function queryPluginDb<T>(stateDir: string, sql: string, ...params: unknown[]): T[] {
  const file = pluginDatabaseFile(stateDir);
  if (!fs.existsSync(file)) throw new Error(`no plugin database at ${file}`);
  const db = openSqlite(file, { readonly: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}

const READER_SOURCE = `
const file = process.argv[1];
let db;
try {
  const { DatabaseSync } = require("node:sqlite");
  db = new DatabaseSync(file);
} catch {
  db = new (require("better-sqlite3"))(file);
}
db.exec("BEGIN");
db.prepare("SELECT COUNT(*) FROM runs").get();
process.stdout.write("ready\\n");
setInterval(() => {}, 60_000);
`;

/**
 * A read transaction on the plugin database, held by a child process until `kill9()`:
 * no checkpoint copies log frames committed after it into the database file. (On read
 * mark 0, after a complete copy, SQLite may still start the log over: `walFramesNow`
 * reads the new log's frames.) Killed (not closed), it leaves the log as a crash does: a
 * closing last connection would checkpoint and delete it.
 */
export async function holdReadSnapshot(stateDir: string): Promise<{ kill9(): Promise<void> }> {
  const child = spawn(process.execPath, ["-e", READER_SOURCE, pluginDatabaseFile(stateDir)], {
    cwd: path.resolve(__dirname, "../.."),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d: Buffer) => d.toString().includes("ready") && resolve());
    child.on("exit", (code) => reject(new Error(`the reader exited with ${code}: ${err}`)));
  });
  return {
    kill9: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGKILL");
      }),
  };
}

/** The plugin database's wal-index now (its -shm, in the machine's byte order): frames in the log, and frames a checkpoint finished copying. */
export function walIndexNow(stateDir: string): { frames: number; copied: number } {
  const shm = fs.readFileSync(`${pluginDatabaseFile(stateDir)}-shm`);
  const u32 = (at: number) => (os.endianness() === "LE" ? shm.readUInt32LE(at) : shm.readUInt32BE(at));
  return { frames: u32(16), copied: u32(96) };
}

/** Frames in the plugin database's log now (`mxFrame` of the wal-index header). */
export function walFramesNow(stateDir: string): number {
  return walIndexNow(stateDir).frames;
}

/** Runs `tasks` with at most `limit` in flight; returns settled results in order. */
export async function pool<T>(tasks: Array<() => Promise<T>>, limit: number): Promise<Array<PromiseSettledResult<T>>> {
  const results: Array<PromiseSettledResult<T>> = new Array(tasks.length);
  let next = 0;
  const worker = async () => {
    while (next < tasks.length) {
      const i = next++;
      try {
        results[i] = { status: "fulfilled", value: await tasks[i]!() };
      } catch (reason) {
        results[i] = { status: "rejected", reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, tasks.length) }, worker));
  return results;
}
