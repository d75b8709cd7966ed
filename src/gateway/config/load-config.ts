/**
 * Finds, parses (JSON5), validates and resolves the gateway config.
 * Order: `--config`, `$GATEWAY_CONFIG`, `./gateway.config.json`, else the demo default.
 * Problems are a GatewayConfigError naming the file and each key.
 */
import fs from "node:fs";
import path from "node:path";
import JSON5 from "json5";
import { GatewayConfigError } from "./config-error";
import { DEFAULTS, type GatewayConfig } from "./gateway-config";
import { demoConfig, ensureDemoOperatorToken, ensureDemoToken, type DemoToken } from "./demo-config";
import { resolveGatewayConfig } from "./resolve-gateway-config";

export { resolveGatewayConfig };

export interface LocateOptions {
  /** Value of `--config`. */
  configFlag?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}

export interface LocatedConfig {
  /** Absolute path, or undefined for the demo default. */
  path?: string;
  from: "flag" | "env" | "cwd" | "demo";
}

/** Where the config comes from (no file I/O beyond an existence check). */
export function locateConfig(opts: LocateOptions = {}): LocatedConfig {
  const cwd = opts.cwd ?? process.cwd();
  const env = opts.env ?? process.env;
  if (opts.configFlag) return { path: path.resolve(cwd, opts.configFlag), from: "flag" };
  if (env.GATEWAY_CONFIG) return { path: path.resolve(cwd, env.GATEWAY_CONFIG), from: "env" };
  const local = path.resolve(cwd, "gateway.config.json");
  if (fs.existsSync(local)) return { path: local, from: "cwd" };
  return { from: "demo" };
}

export interface LoadOptions extends LocateOptions {
  /** `--port` (already validated). */
  portOverride?: number;
}

export interface LoadedConfig {
  config: GatewayConfig;
  located: LocatedConfig;
  /** Set for the demo default. */
  demoToken?: DemoToken;
  /** Set for the demo default: where its operator token is kept. */
  demoOperatorTokenFile?: string;
  /** Set for the demo default: what was repaired in its token files (printed at start-up). */
  demoNotes?: string[];
}

/** Reads and parses a config file; syntax errors name the file, line and column. */
export function readConfigFile(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new GatewayConfigError(file, undefined, code === "ENOENT" ? "the file does not exist" : `the file cannot be read (${code ?? "error"})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON5.parse(text);
  } catch (e) {
    const err = e as Error & { lineNumber?: number; columnNumber?: number };
    const where = err.lineNumber ? ` at line ${err.lineNumber}, column ${err.columnNumber ?? 0}` : "";
    const what = err.message.replace(/^JSON5: /, "").replace(/ at \d+:\d+$/, "");
    throw new GatewayConfigError(file, undefined, `is not valid JSON: ${what}${where}`);
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new GatewayConfigError(file, undefined, "must contain a JSON object at the top level");
  }
  return parsed as Record<string, unknown>;
}

/** Finds and loads the config; for the demo default, creates the state dir and token. */
export function loadGatewayConfig(opts: LoadOptions = {}): LoadedConfig {
  const cwd = opts.cwd ?? process.cwd();
  const located = locateConfig(opts);
  if (located.path) {
    const raw = readConfigFile(located.path);
    const config = resolveGatewayConfig(raw, { configPath: located.path, configDir: path.dirname(located.path), portOverride: opts.portOverride });
    return { config, located };
  }
  const stateDir = path.resolve(cwd, DEFAULTS.stateDir);
  const demoToken = ensureDemoToken(stateDir);
  const operator = ensureDemoOperatorToken(stateDir);
  const config = resolveGatewayConfig(demoConfig(demoToken.token, operator.token), { configDir: cwd, portOverride: opts.portOverride, demo: true });
  return { config, located, demoToken, demoOperatorTokenFile: operator.file, demoNotes: [...demoToken.notes, ...operator.notes] };
}
