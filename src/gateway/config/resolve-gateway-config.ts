/**
 * The gateway-owned keys of a raw config → `GatewayConfig`: every problem is
 * collected — the schema's (ajv, all errors) and the rules a schema cannot state
 * (durations, runner combinations) — and thrown as ONE GatewayConfigError
 * listing each, sorted by key. Secrets are not read here: `gateway.auth.token`
 * is kept as configured and read by `resolveGatewayAuthToken()` when the
 * gateway starts, so commands that never need it work without it.
 */
import path from "node:path";
import { sortProblems, type KeyedProblem } from "../../host-contract/config-rules";
import type { AllowedModel, LastRoute } from "../../host-contract/host-api";
import type { HookRole } from "../../host-contract/hook-role";
import { createRuleAjv, describeAjvErrors } from "./ajv-errors";
import { GatewayConfigError } from "./config-error";
import { GATEWAY_CONFIG_SCHEMA } from "./gateway-config-schema";
import { DEFAULTS, type Durability, type GatewayConfig, type GatewaySecret, type LogFormat, type LogLevel, type RunnerConfig } from "./gateway-config";
import { trustProxyProblems } from "./trust-proxy";
import { allowedHostsProblems } from "./allowed-hosts";
import { parseDuration } from "./duration";

export interface ResolveOptions {
  configPath?: string;
  configDir: string;
  portOverride?: number;
  /** `--role` (already validated); overrides gateway.role. */
  roleOverride?: HookRole;
  demo?: boolean;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === "object" && !Array.isArray(v) ? (v as Obj) : {});

const validateGatewayKeys = createRuleAjv({ allErrors: true, strict: false }).compile(GATEWAY_CONFIG_SCHEMA);

/** Validates the gateway-owned keys of a raw config and applies defaults; throws every problem at once. */
/** `gateway.durability`; unset, it follows the hooks plugin's `hooks.durability` (one setting for both stores), else "process". */
function durabilityOf(own: unknown, hooks: unknown): Durability {
  if (own === "process" || own === "os") return own;
  return hooks === "os" ? "os" : "process";
}

export function resolveGatewayConfig(raw: Record<string, unknown>, opts: ResolveOptions): GatewayConfig {
  const problems: KeyedProblem[] = validateGatewayKeys(raw) ? [] : describeAjvErrors("", validateGatewayKeys.errors);
  /** True when the schema already found `key`, a key inside it or its parent wrong. */
  const failed = (key: string) => problems.some((p) => p.key === key || p.key.startsWith(`${key}.`) || key.startsWith(`${p.key}.`));
  const gw = obj(raw.gateway);
  const agents = obj(raw.agents);
  const defaults = obj(agents.defaults);

  const every = obj(defaults.heartbeat).every ?? DEFAULTS.heartbeatEvery;
  const heartbeatEveryMs = parseDuration(every);
  if (heartbeatEveryMs === undefined && !failed("agents.defaults.heartbeat.every")) {
    problems.push({ key: "agents.defaults.heartbeat.every", rule: 'must be a duration like "30m", "45s" or "1h", or 0 / "off" to disable' });
  }
  if (!failed("gateway.trustProxy")) problems.push(...trustProxyProblems(gw.trustProxy));
  const allowedHosts = obj(gw.ui).allowedHosts as string[] | undefined;
  if (!failed("gateway.ui.allowedHosts")) problems.push(...allowedHostsProblems(allowedHosts));
  const runner = failed("agents.runner") ? undefined : checkRunner(obj(agents.runner), problems);
  const defaultModel = (defaults.model as string | undefined) ?? (runner?.kind === "openai" ? runner.model : undefined);
  if (runner?.kind === "openai" && !defaultModel && !failed("agents.defaults.model")) {
    problems.push({ key: "agents.runner.model", rule: 'is required when agents.runner.kind is "openai" (or set agents.defaults.model)' });
  }
  if (problems.length > 0 || !runner || heartbeatEveryMs === undefined) throw GatewayConfigError.of(opts.configPath, sortProblems(problems));

  const models: AllowedModel[] = Object.entries(obj(defaults.models)).map(([ref, v]) => {
    const alias = obj(v).alias as string | undefined;
    return alias ? { ref, alias } : { ref };
  });
  const lastRoute = obj(obj(obj(raw.session).main).lastRoute);
  const mainLastRoute: LastRoute | undefined =
    typeof lastRoute.channel === "string" ? { channel: lastRoute.channel, ...(typeof lastRoute.to === "string" ? { to: lastRoute.to } : {}) } : undefined;
  const paths = (obj(raw.plugins).paths as string[] | undefined) ?? [];
  const authToken = obj(gw.auth).token as GatewaySecret | undefined;
  return {
    raw,
    configPath: opts.configPath,
    configDir: opts.configDir,
    demo: opts.demo ?? false,
    bind: (gw.bind as string | undefined) ?? DEFAULTS.bind,
    port: opts.portOverride ?? (gw.port as number | undefined) ?? DEFAULTS.port,
    stateDir: path.resolve(opts.configDir, (gw.stateDir as string | undefined) ?? DEFAULTS.stateDir),
    ...(authToken === undefined ? {} : { authTokenSource: authToken }),
    logLevel: (gw.logLevel as LogLevel | undefined) ?? "info",
    ...(gw.logFormat === undefined ? {} : { logFormat: gw.logFormat as LogFormat }),
    trustProxy: [...((gw.trustProxy as string[] | undefined) ?? [])],
    ...(allowedHosts === undefined ? {} : { uiAllowedHosts: [...allowedHosts] }),
    durability: durabilityOf(gw.durability, obj(raw.hooks).durability),
    role: opts.roleOverride ?? (gw.role as HookRole | undefined) ?? "consumer",
    pluginPaths: paths.map((p) => path.resolve(opts.configDir, p)),
    heartbeatEveryMs,
    heartbeatMaxPromptChars: (obj(defaults.heartbeat).maxPromptChars as number | undefined) ?? DEFAULTS.heartbeatMaxPromptChars,
    mainMaxPending: (obj(obj(raw.session).main).maxPending as number | undefined) ?? DEFAULTS.mainMaxPending,
    hookSessionRetentionDays: (obj(obj(raw.session).hooks).retentionDays as number | undefined) ?? DEFAULTS.hookSessionRetentionDays,
    journalMaxBytes: (obj(gw.journal).maxBytes as number | undefined) ?? DEFAULTS.journalMaxBytes,
    runner,
    defaultModel,
    models,
    defaultTimeoutSeconds: (defaults.timeoutSeconds as number | undefined) ?? DEFAULTS.timeoutSeconds,
    mainLastRoute,
  };
}

/** The runner, or undefined after adding its problems (keys that belong to the other kind, a missing or bad baseUrl). */
function checkRunner(r: Obj, problems: KeyedProblem[]): RunnerConfig | undefined {
  const kind = (r.kind as string | undefined) ?? "echo";
  const before = problems.length;
  const only = (key: string, other: string) => problems.push({ key: `agents.runner.${key}`, rule: `is only valid when agents.runner.kind is "${other}"` });
  if (kind === "echo") {
    for (const k of ["baseUrl", "apiKeyEnv", "model"]) if (r[k] !== undefined) only(k, "openai");
    return problems.length > before ? undefined : { kind: "echo", delayMs: (r.delayMs as number | undefined) ?? 0 };
  }
  if (r.delayMs !== undefined) only("delayMs", "echo");
  const baseUrl = r.baseUrl as string | undefined;
  if (!baseUrl) problems.push({ key: "agents.runner.baseUrl", rule: 'is required when agents.runner.kind is "openai"' });
  else if (!isHttpUrl(baseUrl)) problems.push({ key: "agents.runner.baseUrl", rule: "must be an absolute http(s) URL" });
  if (problems.length > before || !baseUrl) return undefined;
  return {
    kind: "openai",
    baseUrl: baseUrl.replace(/\/+$/, ""),
    ...(r.apiKeyEnv ? { apiKeyEnv: r.apiKeyEnv as string } : {}),
    ...(r.model ? { model: r.model as string } : {}),
  };
}

function isHttpUrl(s: string): boolean {
  try {
    const url = new URL(s);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** The top-level sections the gateway owns (everything else belongs to a plugin). */
const GATEWAY_SECTIONS = ["gateway", "agents", "session", "plugins"] as const;

/**
 * For a config whose gateway keys have problems: a config built from its plugin
 * sections, `gateway.stateDir` and `plugins.paths` (when those two are valid), so the
 * start can still check every plugin's section and report all problems at once.
 * Undefined when even that does not resolve.
 */
export function fallbackGatewayConfig(raw: Record<string, unknown>, opts: ResolveOptions): GatewayConfig | undefined {
  const problems: KeyedProblem[] = validateGatewayKeys(raw) ? [] : describeAjvErrors("", validateGatewayKeys.errors);
  const bad = (key: string) => problems.some((p) => p.key === key || key.startsWith(`${p.key}.`));
  const kept: Record<string, unknown> = { ...raw };
  for (const section of GATEWAY_SECTIONS) delete kept[section];
  const stateDir = obj(raw.gateway).stateDir;
  if (typeof stateDir === "string" && !bad("gateway.stateDir")) kept.gateway = { stateDir };
  const paths = obj(raw.plugins).paths;
  if (Array.isArray(paths) && !bad("plugins.paths")) kept.plugins = { paths };
  try {
    return resolveGatewayConfig(kept, opts);
  } catch {
    return undefined;
  }
}
