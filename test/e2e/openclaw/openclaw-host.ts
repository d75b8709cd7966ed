/**
 * A real OpenClaw gateway for the OpenClaw suite: the pinned `openclaw` on the
 * pinned Node 24, both from the CI cache folder (scripts/ci/node24.sh and
 * scripts/ci/openclaw.sh), with its state and config in a temporary directory,
 * on loopback on a free port.
 *
 * Prerequisites are looked up without installing anything (`--if-cached`): a
 * machine without them skips the suite with a notice, unless CI=true, where a
 * missing prerequisite fails it.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { until } from "../../helpers/until";

export const ROOT = path.resolve(__dirname, "../../..");
const CACHE_NOTE = "run scripts/ci/node24.sh && scripts/ci/openclaw.sh (they install the pinned versions into ~/.cache/inbound-webhooks-ci), or .ci/run";

export interface Prerequisites {
  node24: string;
  openclaw: string;
}

/** The pinned Node 24 and openclaw entry when the cache holds them, else why not. */
export function findPrerequisites(): Prerequisites | { missing: string } {
  const found: string[] = [];
  for (const script of ["node24.sh", "openclaw.sh"]) {
    const r = spawnSync("bash", [path.join(ROOT, "scripts/ci", script), "--if-cached"], { encoding: "utf8" });
    if (r.status !== 0) return { missing: `${script.replace(".sh", "")} is not installed in the CI cache (${CACHE_NOTE})` };
    found.push(r.stdout.trim());
  }
  return { node24: found[0]!, openclaw: found[1]! };
}

export { freePort } from "../../helpers/free-port";

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export class OpenClawHost {
  readonly configPath: string;
  private child: ChildProcess | undefined;
  private output = "";

  constructor(
    readonly prereq: Prerequisites,
    readonly dir: string,
    readonly port: number,
    /** More variables for OpenClaw's environment (e.g. the `{ env }` source of a secret in the plugin's section). */
    readonly extraEnv: Record<string, string> = {},
  ) {
    this.configPath = path.join(dir, "state", "openclaw.json");
    fs.mkdirSync(path.join(dir, "state"), { recursive: true });
    fs.mkdirSync(path.join(dir, "home"), { recursive: true });
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * Waits until the plugin's /webhooks route answers (401 to a request without a token); OpenClaw refusing to start
   * (a loaded machine can time out its state lease) fails at once, not after the wait.
   */
  pluginServes(what: string, opts: { timeoutMs: number; intervalMs: number; detail?: () => string }): Promise<void> {
    return until(
      async () => {
        try {
          return (await fetch(`${this.baseUrl}/webhooks/wake`, { method: "POST", body: "{}" })).status === 401;
        } catch {
          if (this.output.includes("Gateway failed to start")) throw new Error(`OpenClaw did not start:\n${this.output.slice(-3000)}`);
          return false;
        }
      },
      what,
      opts,
    );
  }

  /**
   * OpenClaw's state and config in the temp dir, its HOME too (nothing of the user's ~/.openclaw is read).
   * The npm that `openclaw plugins install` runs takes packages already in npm's cache without asking the
   * registry again (`npm test` passes the cache's folder as npm_config_cache; its `npm ci` filled it).
   */
  get env(): NodeJS.ProcessEnv {
    return {
      ...process.env,
      OPENCLAW_STATE_DIR: path.join(this.dir, "state"),
      OPENCLAW_CONFIG_PATH: this.configPath,
      HOME: path.join(this.dir, "home"),
      NO_COLOR: "1",
      CI: "",
      npm_config_prefer_offline: "true",
      ...this.extraEnv,
    };
  }

  readConfig(): Record<string, unknown> {
    return JSON.parse(fs.readFileSync(this.configPath, "utf8")) as Record<string, unknown>;
  }

  writeConfig(config: Record<string, unknown>): void {
    fs.writeFileSync(this.configPath, `${JSON.stringify(config, null, 2)}\n`);
  }

  /** One `openclaw …` command (20–40 s each on two cores). */
  cli(args: string[], timeoutMs = 240_000): Promise<CliResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(this.prereq.node24, [this.prereq.openclaw, ...args], { env: this.env, stdio: ["ignore", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`openclaw ${args.join(" ")} did not finish within ${timeoutMs} ms\n${stdout}\n${stderr}`));
      }, timeoutMs);
      child.on("close", (status) => {
        clearTimeout(timer);
        resolve({ status, stdout, stderr });
      });
    });
  }

  /** Starts `openclaw gateway run` (returns at once; wait with `untilServing`). */
  start(): void {
    if (this.child) throw new Error("the gateway is already running");
    const child = spawn(this.prereq.node24, [this.prereq.openclaw, "gateway", "run"], { env: this.env, stdio: ["ignore", "pipe", "pipe"] });
    const keep = (c: Buffer) => {
      this.output = (this.output + c.toString()).slice(-200_000);
    };
    child.stdout!.on("data", keep);
    child.stderr!.on("data", keep);
    this.child = child;
  }

  /** The gateway's output so far (for failure messages). */
  log(): string {
    return this.output;
  }

  /** Stops the gateway: SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 60_000): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
    await exited;
    clearTimeout(timer);
  }
}

/**
 * GET `url` with a bearer token; the JSON answer. Tried again (up to 3 times) when the connection
 * was reset: a poll every 500 ms on a loaded machine can write its request on a kept-alive
 * connection the gateway is closing as idle (a CI run failed on one `read ECONNRESET` while a run
 * was being polled). A GET is idempotent, so trying it again changes nothing.
 */
export async function getJson(url: string, token: string): Promise<Record<string, any>> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as Record<string, any>;
    } catch (e) {
      const code = (e as { cause?: { code?: string } }).cause?.code;
      if (attempt >= 3 || (code !== "ECONNRESET" && code !== "UND_ERR_SOCKET")) throw e;
    }
  }
}
