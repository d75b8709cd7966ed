/**
 * The documented demo default, used when no config file is found: hooks enabled
 * on `/hooks` with a token generated on first use and stored in
 * `<stateDir>/hook-token` (0600), loopback only, echo runner.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { DEFAULTS } from "./gateway-config";
import { STATE_FILES } from "../paths";

export interface DemoToken {
  token: string;
  file: string;
  /** True until `markDemoTokenShown()` ran once: the start-up output prints the token then. */
  firstShow: boolean;
}

/** Reads the demo hook token from the state dir, creating it on first use. */
export function ensureDemoToken(stateDir: string, randomBytes: (n: number) => Buffer = crypto.randomBytes): DemoToken {
  const file = path.join(stateDir, STATE_FILES.demoHookToken);
  fs.mkdirSync(stateDir, { recursive: true });
  let token: string;
  if (fs.existsSync(file)) {
    token = fs.readFileSync(file, "utf8").trim();
  } else {
    token = randomBytes(24).toString("base64url");
    fs.writeFileSync(file, `${token}\n`, { mode: 0o600 });
  }
  return { token, file, firstShow: !fs.existsSync(`${file}.shown`) };
}

/** Records that the token was printed, so later starts only show where it is stored. */
export function markDemoTokenShown(token: DemoToken): void {
  fs.writeFileSync(`${token.file}.shown`, "");
}

/** The demo config snapshot (what `api.config` is for plugins when no file exists). */
export function demoConfig(token: string): Record<string, unknown> {
  return {
    gateway: { bind: DEFAULTS.bind, port: DEFAULTS.port },
    hooks: { enabled: true, token, path: "/hooks" },
    agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: DEFAULTS.heartbeatEvery } } },
  };
}
