/**
 * Finds, parses (JSON5), validates and resolves the gateway config.
 * Order: `--config`, `$GATEWAY_CONFIG`, `./gateway.config.json`, else the demo default.
 * Every problem is a GatewayConfigError naming the file and the key.
 */
import fs from "node:fs";
import path from "node:path";
import Ajv from "ajv";
import JSON5 from "json5";
import { GatewayConfigError } from "./config-error";
import { firstProblem } from "./ajv-errors";
import { GATEWAY_CONFIG_SCHEMA } from "./gateway-config-schema";
import { DEFAULTS, type GatewayConfig, type LogLevel, type RunnerConfig } from "./gateway-config";
import { parseDuration } from "./duration";
import { demoConfig, ensureDemoToken, type DemoToken } from "./demo-config";
import type { AllowedModel, LastRoute } from "../../host-contract/host-api";

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
}

const ajv = new Ajv({ allErrors: false, strict: false });
const validateGatewaySection = ajv.compile(GATEWAY_CONFIG_SCHEMA);

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
    const config = resolveGatewayConfig(raw, { configPath: located.path, configDir: path.dirname(located.path), portOverride: opts.portOverride, env: opts.env });
    return { config, located };
  }
  const stateDir = path.resolve(cwd, DEFAULTS.stateDir);
  const demoToken = ensureDemoToken(stateDir);
  const config = resolveGatewayConfig(demoConfig(demoToken.token), { configDir: cwd, portOverride: opts.portOverride, env: opts.env, demo: true });
  return { config, located, demoToken };
}

interface ResolveOptions {
  configPath?: string;
  configDir: string;
  portOverride?: number;
  env?: NodeJS.ProcessEnv;
  demo?: boolean;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

/** Validates the gateway-owned keys of a raw config and applies defaults. */
export function resolveGatewayConfig(raw: Record<string, unknown>, opts: ResolveOptions): GatewayConfig {
  const file = opts.configPath;
  if (!validateGatewaySection(raw)) {
    const p = firstProblem("", validateGatewaySection.errors);
    throw new GatewayConfigError(file, p.key, p.rule);
  }
  const env = opts.env ?? process.env;
  const gw = obj(raw.gateway);
  const agents = obj(raw.agents);
  const defaults = obj(agents.defaults);

  let authToken: string | undefined;
  const auth = obj(gw.auth).token;
  if (typeof auth === "string") authToken = auth.trim();
  else if (auth && typeof auth === "object" && "env" in auth) {
    const name = (auth as { env: string }).env;
    authToken = env[name]?.trim();
    if (!authToken) throw new GatewayConfigError(file, "gateway.auth.token", `refers to environment variable ${name}, which is not set`);
  } else if (auth && typeof auth === "object") {
    const tokenFile = path.resolve(opts.configDir, (auth as { file: string }).file);
    try {
      authToken = fs.readFileSync(tokenFile, "utf8").trim();
    } catch {
      throw new GatewayConfigError(file, "gateway.auth.token", `refers to file ${tokenFile}, which cannot be read`);
    }
    if (!authToken) throw new GatewayConfigError(file, "gateway.auth.token", `refers to file ${tokenFile}, which is empty`);
  }

  const every = obj(defaults.heartbeat).every ?? DEFAULTS.heartbeatEvery;
  const heartbeatEveryMs = parseDuration(every);
  if (heartbeatEveryMs === undefined) {
    throw new GatewayConfigError(file, "agents.defaults.heartbeat.every", 'must be a duration like "30m", "45s" or "1h", or 0 / "off" to disable');
  }

  const runner = resolveRunner(obj(agents.runner), file);
  const defaultModel = (defaults.model as string | undefined) ?? (runner.kind === "openai" ? runner.model : undefined);
  if (runner.kind === "openai" && !defaultModel) {
    throw new GatewayConfigError(file, "agents.runner.model", 'is required when agents.runner.kind is "openai" (or set agents.defaults.model)');
  }

  const models: AllowedModel[] = Object.entries(obj(defaults.models)).map(([ref, v]) => {
    const alias = obj(v).alias as string | undefined;
    return alias ? { ref, alias } : { ref };
  });

  const lastRoute = obj(obj(obj(raw.session).main).lastRoute);
  const mainLastRoute: LastRoute | undefined =
    typeof lastRoute.channel === "string" ? { channel: lastRoute.channel, ...(typeof lastRoute.to === "string" ? { to: lastRoute.to } : {}) } : undefined;

  const paths = (obj(raw.plugins).paths as string[] | undefined) ?? [];
  return {
    raw,
    configPath: opts.configPath,
    configDir: opts.configDir,
    demo: opts.demo ?? false,
    bind: (gw.bind as string | undefined) ?? DEFAULTS.bind,
    port: opts.portOverride ?? (gw.port as number | undefined) ?? DEFAULTS.port,
    stateDir: path.resolve(opts.configDir, (gw.stateDir as string | undefined) ?? DEFAULTS.stateDir),
    authToken,
    logLevel: (gw.logLevel as LogLevel | undefined) ?? "info",
    pluginPaths: paths.map((p) => path.resolve(opts.configDir, p)),
    heartbeatEveryMs,
    heartbeatMaxPromptChars: (obj(defaults.heartbeat).maxPromptChars as number | undefined) ?? DEFAULTS.heartbeatMaxPromptChars,
    mainMaxPending: (obj(obj(raw.session).main).maxPending as number | undefined) ?? DEFAULTS.mainMaxPending,
    runner,
    defaultModel,
    models,
    defaultTimeoutSeconds: (defaults.timeoutSeconds as number | undefined) ?? DEFAULTS.timeoutSeconds,
    mainLastRoute,
  };
}

function resolveRunner(r: Obj, file: string | undefined): RunnerConfig {
  const kind = (r.kind as string | undefined) ?? "echo";
  if (kind === "echo") {
    for (const k of ["baseUrl", "apiKeyEnv", "model"]) {
      if (r[k] !== undefined) throw new GatewayConfigError(file, `agents.runner.${k}`, 'is only valid when agents.runner.kind is "openai"');
    }
    return { kind: "echo", delayMs: (r.delayMs as number | undefined) ?? 0 };
  }
  if (r.delayMs !== undefined) throw new GatewayConfigError(file, "agents.runner.delayMs", 'is only valid when agents.runner.kind is "echo"');
  const baseUrl = r.baseUrl as string | undefined;
  if (!baseUrl) throw new GatewayConfigError(file, "agents.runner.baseUrl", 'is required when agents.runner.kind is "openai"');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new GatewayConfigError(file, "agents.runner.baseUrl", "must be an absolute http(s) URL");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new GatewayConfigError(file, "agents.runner.baseUrl", "must be an absolute http(s) URL");
  }
  return {
    kind: "openai",
    baseUrl: baseUrl.replace(/\/+$/, ""),
    ...(r.apiKeyEnv ? { apiKeyEnv: r.apiKeyEnv as string } : {}),
    ...(r.model ? { model: r.model as string } : {}),
  };
}
