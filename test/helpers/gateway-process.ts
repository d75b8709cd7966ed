/**
 * Runs the real `gateway` CLI (bin/gateway.js → dist/) as a child process for
 * end-to-end tests: writes the config into a fresh temp dir, starts
 * `gateway start --config <tmp>/gateway.config.json --port 0`, parses the printed
 * `listening: <url>` line and gives access to the journal.
 *
 * Requires a built dist (`npx tsc -p tsconfig.build.json`).
 *
 * @example
 *   const gw = await startGateway({ config: { hooks: { enabled: true, token: "t".repeat(32) } } });
 *   await fetch(`${gw.baseUrl}/hooks/wake`, { method: "POST", headers: { authorization: `Bearer ${gw.token}` }, body: '{"text":"hi"}' });
 *   await gw.waitForJournal((e) => e.type === "heartbeat");
 *   await gw.stop();
 */
import { until } from "./until";
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const REPO_ROOT = path.resolve(__dirname, "..", "..");
export const GATEWAY_BIN = path.join(REPO_ROOT, "bin", "gateway.js");
/**
 * The node binary that runs the gateway: `GATEWAY_NODE` when set (e.g. the pinned Node 24 of
 * scripts/ci/node24.sh, so the crash suites run the store on node:sqlite), else jest's own.
 */
export const GATEWAY_NODE = process.env.GATEWAY_NODE || process.execPath;

/** One line of `<stateDir>/journal.jsonl`. */
export interface JournalEntry {
  ts: string;
  type: string;
  [key: string]: unknown;
}

export interface StartGatewayOptions {
  /** Config object written to `<tmp>/gateway.config.json` (ignored when `configPath` is given). */
  config?: Record<string, unknown>;
  /** Use an existing config file instead of writing one. */
  configPath?: string;
  /** Extra environment variables for the child. */
  env?: Record<string, string | undefined>;
  /** Extra CLI arguments after `start --config <file> --port 0`. */
  args?: string[];
  /** Port to pass instead of 0. */
  port?: number;
  /** Working directory of the child (default: the temp dir). */
  cwd?: string;
  /** Reuse this temp dir (e.g. to restart a gateway on the same state). */
  dir?: string;
  /** Bound on start-up (default 20 s). */
  startTimeoutMs?: number;
  /** Start without any config file (the demo default): no `--config`, cwd = the temp dir. */
  demo?: boolean;
}

export interface GatewayProcess {
  baseUrl: string;
  port: number;
  /** The hook token (`hooks.token` when a plain string; else the demo token from the state dir). */
  token: string | undefined;
  /** Temp dir holding the config (and, by default, the state dir). */
  dir: string;
  stateDir: string;
  configPath: string;
  child: ChildProcess;
  journal(): JournalEntry[];
  /** Polls the journal until an entry matches (bounded); resolves with it. */
  waitForJournal(pred: (e: JournalEntry) => boolean, timeoutMs?: number): Promise<JournalEntry>;
  /** Sends the signal and resolves with the exit code (null when killed by a signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** SIGKILL, waits for the exit. */
  kill9(): Promise<void>;
  stdout(): string;
  stderr(): string;
}

/** Creates a fresh temp dir for a gateway (config + state). */
export function makeGatewayDir(prefix = "gw-e2e-"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * Reads the journal: `<stateDir>/journal.1.jsonl` (the previous file, when the journal
 * was rotated at `gateway.journal.maxBytes`) then `journal.jsonl` (a missing file → none).
 */
export function readJournal(stateDir: string): JournalEntry[] {
  return ["journal.1.jsonl", "journal.jsonl"].flatMap((name) => {
    const file = path.join(stateDir, name);
    if (!fs.existsSync(file)) return [];
    return fs
      .readFileSync(file, "utf8")
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as JournalEntry);
  });
}

/** Runs the gateway CLI to completion (for `plugins list`, bad-config checks …). */
export function runGatewayCli(
  args: string[],
  opts: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(GATEWAY_NODE, [GATEWAY_BIN, ...args], {
      cwd: opts.cwd ?? REPO_ROOT,
      env: cleanEnv(opts.env),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`gateway ${args.join(" ")} did not exit within ${opts.timeoutMs ?? 30000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 30000);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function cleanEnv(extra?: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env.GATEWAY_CONFIG;
  delete env.NODE_OPTIONS;
  for (const [k, v] of Object.entries(extra ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}

function stateDirOf(configPath: string, config: Record<string, unknown> | undefined): string {
  const gw = (config?.gateway ?? {}) as { stateDir?: unknown };
  const dir = path.dirname(configPath);
  return typeof gw.stateDir === "string" ? path.resolve(dir, gw.stateDir) : path.join(dir, ".gateway");
}

/** Starts `gateway start` as a child process and waits for its `listening:` line. */
export async function startGateway(opts: StartGatewayOptions = {}): Promise<GatewayProcess> {
  const dir = opts.dir ?? makeGatewayDir();
  let configPath: string;
  let config: Record<string, unknown> | undefined;
  if (opts.demo) {
    configPath = path.join(dir, "gateway.config.json");
    config = undefined;
  } else if (opts.configPath) {
    configPath = opts.configPath;
    try {
      config = JSON.parse(fs.readFileSync(configPath, "utf8")) as Record<string, unknown>;
    } catch {
      config = undefined;
    }
  } else {
    configPath = path.join(dir, "gateway.config.json");
    config = opts.config ?? {};
    fs.writeFileSync(configPath, JSON.stringify(config, null, 2));
  }
  const stateDir = stateDirOf(configPath, config);
  const args = [GATEWAY_BIN, "start", ...(opts.demo ? [] : ["--config", configPath]), "--port", String(opts.port ?? 0), ...(opts.args ?? [])];
  const child = spawn(GATEWAY_NODE, args, {
    cwd: opts.cwd ?? dir,
    env: cleanEnv(opts.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let errText = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (errText += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));

  const baseUrl = await new Promise<string>((resolve, reject) => {
    const timeoutMs = opts.startTimeoutMs ?? 20000;
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`gateway did not print its URL within ${timeoutMs} ms\nstdout:\n${out}\nstderr:\n${errText}`));
    }, timeoutMs);
    const check = () => {
      const m = /^listening: (http:\/\/\S+)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        child.stdout!.off("data", check);
        resolve(m[1]!);
      }
    };
    child.stdout!.on("data", check);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code} before listening\nstdout:\n${out}\nstderr:\n${errText}`));
    });
  });

  const hooks = (config?.hooks ?? {}) as { token?: unknown };
  let token = typeof hooks.token === "string" ? hooks.token : undefined;
  const demoTokenFile = path.join(stateDir, "hook-token");
  if (token === undefined && fs.existsSync(demoTokenFile)) token = fs.readFileSync(demoTokenFile, "utf8").trim();

  let exitCode: number | null | undefined;
  void exited.then((c) => (exitCode = c));

  const gw: GatewayProcess = {
    baseUrl,
    port: Number(new URL(baseUrl).port),
    token,
    dir,
    stateDir,
    configPath,
    child,
    journal: () => readJournal(stateDir),
    async waitForJournal(pred, timeoutMs = 10000) {
      let hit: JournalEntry | undefined;
      await until(() => (hit = readJournal(stateDir).find(pred)) !== undefined, "a matching journal entry", {
        timeoutMs,
        detail: () => `journal:\n${JSON.stringify(readJournal(stateDir), null, 1)}\nstderr:\n${errText}`,
      });
      return hit!;
    },
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (exitCode !== undefined) return exitCode;
      child.kill(signal);
      return exited;
    },
    async kill9() {
      if (exitCode !== undefined) return;
      child.kill("SIGKILL");
      await exited;
    },
    stdout: () => out,
    stderr: () => errText,
  };
  return gw;
}
