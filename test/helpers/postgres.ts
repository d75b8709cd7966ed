/**
 * A real Postgres for the Postgres store's suites: Debian's `postgresql` (listed in
 * .ci/apt-packages.txt) as a throwaway cluster in a temp dir — `initdb -A trust -U app`,
 * then `pg_ctl start` on a free loopback port with its socket in the same dir. Postgres
 * refuses to run as root, so as root the cluster belongs to the `postgres` user (the
 * Debian package creates it) and its commands run through `runuser`.
 *
 * Where Postgres is not installed the suites skip with a printed notice — except in CI
 * (`CI=true`), where a missing Postgres fails them (`describePostgres`).
 *
 * @example
 *   const pg = await startPostgres();
 *   const url = await pg.createDatabase(); // a fresh database per test
 *   await pg.stop("immediate"); await pg.start(); // a Postgres restart under load
 *   await pg.cleanup();
 */
import { execFile, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { freePort } from "./free-port";

const run = promisify(execFile);

export interface PostgresCluster {
  readonly port: number;
  /** Temp dir holding the data dir, the socket and the log. */
  readonly dir: string;
  /** `postgres://app@127.0.0.1:<port>/<database>` */
  url(database?: string): string;
  /** Creates an empty database (a fresh name unless given) and returns its url. */
  createDatabase(name?: string): Promise<string>;
  /** Runs SQL as the superuser `app` through psql; returns its output (tuples only, unaligned). */
  psql(sql: string, database?: string): Promise<string>;
  /** Stops the server: "fast" (sessions ended cleanly) or "immediate" (like a crash: recovery at the next start). */
  stop(mode?: "fast" | "immediate"): Promise<void>;
  /** Starts it again on the same port with the same data. */
  start(): Promise<void>;
  /** The server's log so far (for failure messages). */
  log(): string;
  /** Stops it and removes the temp dir. */
  cleanup(): Promise<void>;
}

/** Where Debian (and most distributions) put the server binaries; `pg_config --bindir` otherwise. */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (fs.existsSync(root)) {
    const versions = fs
      .readdirSync(root)
      .filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb")))
      .sort((a, b) => Number(b) - Number(a));
    if (versions.length > 0) return path.join(root, versions[0]!, "bin");
  }
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (fs.existsSync(path.join(dir, "initdb"))) return dir;
  } catch {
    // Not installed.
  }
  return undefined;
}

const MISSING =
  "Postgres is not installed: the Postgres store's suites need a real server (Debian: apt-get install postgresql, listed in .ci/apt-packages.txt; .ci/run installs it in CI)";

/**
 * `describe` for a suite that needs Postgres: skipped with a printed notice where it is
 * missing, failing where it is missing in CI (`CI=true`).
 */
export function describePostgres(name: string, body: () => void): void {
  if (postgresBinDir() !== undefined) {
    describe(name, body);
    return;
  }
  if (process.env.CI === "true") {
    describe(name, () => {
      it("has a Postgres to run against", () => {
        throw new Error(`${MISSING}.`);
      });
    });
    return;
  }
  // A notice in the output, not a silent pass.
  console.warn(`skipped "${name}": ${MISSING}.`);
  describe.skip(name, body);
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Runs a server binary as the cluster's owner (`postgres` when we are root). */
async function runAsOwner(bin: string, args: string[], timeoutMs = 60_000): Promise<string> {
  const [file, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  try {
    const { stdout } = await run(file, argv, { encoding: "utf8", timeout: timeoutMs });
    return stdout;
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${path.basename(bin)} ${args.join(" ")} failed: ${(err.stderr || err.stdout || err.message).trim()}`);
  }
}

let databases = 0;

export interface StartPostgresOptions {
  /**
   * Default false: the tests' server does not wait for the disk (a `stop("immediate")`, like a
   * `kill -9`, still loses nothing committed: the OS keeps what was written). The bench passes
   * true, so that its numbers are those of a real server.
   */
  fsync?: boolean;
  /** More server settings (`-c name=value`), e.g. the bench's `shared_preload_libraries: "pg_stat_statements"`. */
  settings?: Record<string, string>;
}

/** Starts a throwaway cluster (about 1.5 s); call `cleanup()` in afterAll. */
export async function startPostgres(opts: StartPostgresOptions = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`${MISSING}.`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-pg-"));
  if (asRoot) execFileSync("chown", ["postgres:postgres", dir]);
  const data = path.join(dir, "data");
  const logFile = path.join(dir, "server.log");
  const port = await freePort();
  await runAsOwner(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "app", "-E", "UTF8", "--no-sync"]);
  const settings = Object.entries(opts.settings ?? {}).map(([k, v]) => ` -c ${k}=${v}`);
  const options = `-k ${dir} -p ${port} -c listen_addresses=127.0.0.1 -c max_connections=200 -c shared_buffers=32MB -c fsync=${opts.fsync ? "on" : "off"}${settings.join("")}`;
  const url = (database = "postgres") => `postgres://app@127.0.0.1:${port}/${database}`;
  const psqlBin = path.join(bin, "psql");
  const cluster: PostgresCluster = {
    port,
    dir,
    url,
    async createDatabase(name) {
      const db = name ?? `t${process.pid}_${++databases}`;
      await cluster.psql(`CREATE DATABASE ${db}`);
      return url(db);
    },
    async psql(sql, database = "postgres") {
      return runAsOwner(psqlBin, ["-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-h", dir, "-p", String(port), "-U", "app", "-d", database, "-c", sql]);
    },
    async stop(mode = "fast") {
      await runAsOwner(path.join(bin, "pg_ctl"), ["-D", data, "-m", mode, "-w", "stop"]);
    },
    async start() {
      await runAsOwner(path.join(bin, "pg_ctl"), ["-D", data, "-l", logFile, "-o", options, "-w", "-t", "60", "start"]);
    },
    log() {
      try {
        return fs.readFileSync(logFile, "utf8");
      } catch {
        return "";
      }
    },
    async cleanup() {
      try {
        await cluster.stop("immediate");
      } catch {
        // Already stopped.
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  await cluster.start();
  return cluster;
}
