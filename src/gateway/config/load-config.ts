/**
 * Finds, parses (JSON5), validates and resolves the gateway config.
 * Order: `--config`, `$GATEWAY_CONFIG`, `./gateway.config.json`, else the demo default.
 * Problems are a GatewayConfigError naming the file and each key.
 */
import type { HookRole } from "../../host-contract/hook-role";
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
  /** `--role` (already validated). */
  roleOverride?: HookRole;
  /** The config file as already read by `readConfigSource` (a pipe can be read only once). */
  source?: ConfigSource;
}

/** A config file read once: where it is, its parsed content and the directory its relative paths resolve against. */
export interface ConfigSource {
  located: LocatedConfig & { path: string };
  raw: Record<string, unknown>;
  configDir: string;
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

/**
 * The directory relative paths resolve against: the config file's, unless the "file" is
 * a pipe or a device (`--config <(…)` is /dev/fd/63, whose "directory" /dev/fd holds no
 * state and cannot be written: creating the state dir there never returned) — then the
 * current directory, as for the demo default.
 */
function configDirOf(file: string, cwd: string): string {
  try {
    return fs.statSync(file).isFile() ? path.dirname(file) : cwd;
  } catch {
    return path.dirname(file);
  }
}

/** Finds and reads the config file once (undefined for the demo default). */
export function readConfigSource(opts: LocateOptions = {}): ConfigSource | undefined {
  const located = locateConfig(opts);
  if (!located.path) return undefined;
  const raw = readConfigFile(located.path);
  return { located: { ...located, path: located.path }, raw, configDir: configDirOf(located.path, opts.cwd ?? process.cwd()) };
}

/** Finds and loads the config; for the demo default, creates the state dir and token. */
export function loadGatewayConfig(opts: LoadOptions = {}): LoadedConfig {
  const cwd = opts.cwd ?? process.cwd();
  const source = opts.source ?? readConfigSource(opts);
  if (source) {
    const { located, raw, configDir } = source;
    const config = resolveGatewayConfig(raw, { configPath: located.path, configDir, portOverride: opts.portOverride, roleOverride: opts.roleOverride });
    return { config, located };
  }
  const located = locateConfig(opts);
  const stateDir = path.resolve(cwd, DEFAULTS.stateDir);
  const demoToken = ensureDemoToken(stateDir);
  const operator = ensureDemoOperatorToken(stateDir);
  const config = resolveGatewayConfig(demoConfig(demoToken.token, operator.token), {
    configDir: cwd,
    portOverride: opts.portOverride,
    roleOverride: opts.roleOverride,
    demo: true,
  });
  return { config, located, demoToken, demoOperatorTokenFile: operator.file, demoNotes: [...demoToken.notes, ...operator.notes] };
}
