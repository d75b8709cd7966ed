/**
 * The documented demo default, used when no config file is found: hooks enabled
 * on `/hooks` with a token generated on first use and stored in
 * `<stateDir>/hook-token` (0600), the dashboard on with an operator token
 * generated the same way (`<stateDir>/operator-token`, never printed: each start
 * prints a one-time login link instead), loopback only, echo runner.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DEFAULTS } from "./gateway-config";
import { STATE_FILES } from "../paths";
import { mkdirPrivate } from "../../host-contract/private-fs";
import { writeFileAtomic } from "../../host-contract/atomic-write";

export interface DemoToken {
  token: string;
  file: string;
  /** True until `markDemoTokenShown()` ran once: the start-up output prints the token then. */
  firstShow: boolean;
  /** What was repaired (a file others could read tightened to 0600), for the start-up output. */
  notes: string[];
}

/**
 * A secret kept in `file` (0600), generated on first use: 24 random bytes, base64url.
 * Written whole or not at all (temp file + rename: a full disk or a crash mid-write
 * leaves no file, and the next start generates it); a file found empty (left by an
 * interrupted write of an older version) is generated again. `created`: it was generated now.
 */
function ensureSecretFile(file: string, randomBytes: (n: number) => Buffer): { token: string; created: boolean; notes: string[] } {
  mkdirPrivate(path.dirname(file));
  const kept = fs.existsSync(file) ? fs.readFileSync(file, "utf8").trim() : "";
  if (kept !== "") return { token: kept, created: false, notes: tightened(file) };
  const token = randomBytes(24).toString("base64url");
  writeFileAtomic(file, `${token}\n`, 0o600);
  return { token, created: true, notes: [] };
}

/** A token file others may read or write is made 0600; returns what was done, for the start-up output. */
function tightened(file: string): string[] {
  const mode = fs.statSync(file).mode & 0o777;
  if ((mode & 0o077) === 0) return [];
  fs.chmodSync(file, 0o600);
  return [`permissions of ${file} tightened from 0${mode.toString(8)} to 0600 (it holds a token)`];
}

/** Reads the demo hook token from the state dir, creating it on first use (and showing a new one at the next start-up output). */
export function ensureDemoToken(stateDir: string, randomBytes: (n: number) => Buffer = crypto.randomBytes): DemoToken {
  const file = path.join(stateDir, STATE_FILES.demoHookToken);
  const { token, created, notes } = ensureSecretFile(file, randomBytes);
  if (created) fs.rmSync(`${file}.shown`, { force: true });
  return { token, file, firstShow: !fs.existsSync(`${file}.shown`), notes };
}

/** The demo's operator token (`gateway.auth.token`: /ui, /metrics, /api/*), created on first use like the hook token. */
export function ensureDemoOperatorToken(
  stateDir: string,
  randomBytes: (n: number) => Buffer = crypto.randomBytes,
): { token: string; file: string; notes: string[] } {
  const file = path.join(stateDir, STATE_FILES.demoOperatorToken);
  const { token, notes } = ensureSecretFile(file, randomBytes);
  return { token, file, notes };
}

/** Records that the token was printed, so later starts only show where it is stored. */
export function markDemoTokenShown(token: DemoToken): void {
  // 0600 like every file in the private state dir (an existing marker from an older version keeps its mode; it holds nothing).
  fs.writeFileSync(`${token.file}.shown`, "", { mode: 0o600 });
}

/** The demo config snapshot (what `api.config` is for plugins when no file exists). */
export function demoConfig(token: string, operatorToken: string): Record<string, unknown> {
  return {
    gateway: { bind: DEFAULTS.bind, port: DEFAULTS.port, auth: { token: operatorToken } },
    hooks: { enabled: true, token, path: "/hooks" },
    agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: DEFAULTS.heartbeatEvery } } },
  };
}
