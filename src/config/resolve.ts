/**
 * The raw gateway config → the plugin's typed config, in two steps:
 *
 * - `resolveConfig()`, once, at activation: validates the `hooks` section and
 *   the host keys the plugin reads, applies defaults. Every problem is collected
 *   and reported in ONE `ConfigError` whose message has one `<key> <rule>` line
 *   per problem, sorted by key:
 *
 *     hooks.maxBodyBytes must be at least 1
 *     hooks.token is required when hooks.enabled is true
 *
 *   No secret is read: `hooks.token` is kept as configured (its shape checked),
 *   so commands that never need it (`gateway webhooks test`) work while its
 *   variable is unset.
 * - `resolveHooksSecrets()`, where the token is used (the gateway starting to
 *   serve hooks, `gateway webhooks mail run`): reads it from plain text, env or
 *   file and checks what needs its value; problems are thrown the same way.
 *
 * Messages never contain the token or a stack trace.
 *
 * @example
 *   const config = resolveConfig(api.config, { configDir: api.configDir });
 *   config.path // "/hooks"
 *   const withToken = resolveHooksSecrets(config, { configDir: api.configDir });
 */
import path from "node:path";
import { ConfigError } from "../core/errors";
import { problemLine, sortProblems, type KeyedProblem } from "../host-contract/config-rules";
import type { CompilableHooksConfig, HooksConfig, MailConfig, ResolvedHooksConfig, SecretSource } from "./types";
import { toMappingConfig, type ValidatedMapping } from "./mappings";
import { normaliseHookPath } from "./paths";
import { defaultMailHookUrl, hookUrlCredential } from "./mail-hook-url";
import { describeProblemList } from "./problems";
import { HOOKS_DEFAULTS, IMAP_DEFAULT_PORTS, PATTERN_RULES, REGEXES } from "./rules";
import { rawConfigSchema, VALIDATION_OPTIONS } from "./schema";
import { resolveSecret } from "./secrets";
import { storeProblems, toStoreConfig, type ValidatedStore } from "./store-config";

export interface ResolveContext {
  /** Directory of the config file: relative paths (token file, transformsDir) resolve against it. */
  configDir: string;
  /** Environment for `{ env }` references, read by resolveHooksSecrets(); default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

type ValidatedMail = Omit<MailConfig, "imap" | "hookUrl"> & { hookUrl?: string; imap: Omit<MailConfig["imap"], "port"> & { port?: number } };

/** The validated config as joi returns it (defaults applied). */
interface ValidatedConfig {
  hooks: Omit<HooksConfig, "tokenSource" | "gatewayTokenSource" | "mappings" | "mail" | "defaultTimeoutSeconds" | "store"> & {
    token?: SecretSource;
    store: ValidatedStore;
    mappings: ValidatedMapping[];
    mail?: ValidatedMail;
  };
  agents: { defaults: { timeoutSeconds: number; models?: Record<string, { alias?: string }> } };
  gateway?: { auth?: { token?: SecretSource } };
}

/** One ConfigError listing every problem, a line each, sorted by key. */
function configError(problems: readonly KeyedProblem[]): ConfigError {
  return new ConfigError(sortProblems(problems).map(problemLine).join("\n"));
}

const tokenProblem = (rule: string): KeyedProblem => ({ key: "hooks.token", rule });

/**
 * What `checkConfig` found: every schema problem, and what the compile-time checks
 * (src/plugin/config-check.ts) may read.
 */
export interface ConfigCheck {
  /** Every problem the schema (and the checks beside it here) found, sorted by key; [] when valid. */
  problems: KeyedProblem[];
  /** The typed config, only when there is no problem. */
  config?: HooksConfig;
  /** The parts that passed (the whole config when valid); absent when `hooks` itself is not an object. */
  compilable?: CompilableHooksConfig;
}

/** Validates and applies defaults; reads no secret; throws one ConfigError listing every problem. */
export function resolveConfig(raw: Readonly<Record<string, unknown>>, ctx: ResolveContext): HooksConfig {
  const checked = checkConfig(raw, ctx);
  if (!checked.config) throw configError(checked.problems);
  return checked.config;
}

/** Validates and applies defaults, reading no secret: every problem, never a throw. */
export function checkConfig(raw: Readonly<Record<string, unknown>>, ctx: ResolveContext): ConfigCheck {
  const { value, error } = rawConfigSchema.validate(raw, VALIDATION_OPTIONS);
  const problems = describeProblemList(error, rawConfigSchema);
  const failedKeys = new Set((error?.details ?? []).map((d) => d.path.join(".")));
  const cfg = value as ValidatedConfig | undefined;
  const hooks = cfg?.hooks;
  const failed = (key: string) => hasFailure(failedKeys, key);

  if (!failed("agents.defaults.models")) problems.push(...checkModelAliases(cfg?.agents?.defaults?.models));
  if (!failed("hooks.store")) problems.push(...storeProblems(hooks?.store));
  const hookUrl = hooks?.mail?.hookUrl;
  if (hookUrl !== undefined && !failed("hooks.mail.hookUrl")) {
    const rule = hookUrlProblem(hookUrl);
    if (rule) {
      problems.push({ key: "hooks.mail.hookUrl", rule });
      failedKeys.add("hooks.mail.hookUrl");
    }
  }
  if (problems.length === 0) {
    const config = toHooksConfig(cfg!, raw, ctx);
    return { problems, config, compilable: config };
  }
  const compilable = hooks !== null && typeof hooks === "object" && !Array.isArray(hooks) ? compilableParts(hooks, raw, ctx, failedKeys) : undefined;
  return { problems: sortProblems(problems), ...(compilable ? { compilable } : {}) };
}

/** The config section a preset reads: while it failed the schema, that preset is not compiled. */
const PRESET_SECTION: Readonly<Record<string, string>> = { github: "hooks.github", mail: "hooks.mail" };

/**
 * The parts of a config with schema problems that passed: a mapping keeps only its fields without
 * a problem (none when the entry itself is not an object), a `hooks.presets` entry with a problem
 * (or whose section has one) is undefined, and transform modules are not resolved while
 * `hooks.transformsDir` has a problem.
 */
function compilableParts(
  hooks: ValidatedConfig["hooks"],
  raw: Readonly<Record<string, unknown>>,
  ctx: ResolveContext,
  failedKeys: ReadonlySet<string>,
): CompilableHooksConfig {
  const failed = (key: string) => hasFailure(failedKeys, key);
  const presetOk = (name: unknown, i: number): name is string =>
    typeof name === "string" && !failed(`hooks.presets.${i}`) && (PRESET_SECTION[name] === undefined || !failed(PRESET_SECTION[name]));
  const dirOk = typeof hooks.transformsDir === "string" && !failed("hooks.transformsDir");
  const mappings = Array.isArray(hooks.mappings)
    ? hooks.mappings.map((m, i) => {
        if (failedKeys.has(`hooks.mappings.${i}`) || m === null || typeof m !== "object") return undefined;
        const passed = Object.fromEntries(Object.entries(m).filter(([field]) => !failed(`hooks.mappings.${i}.${field}`)));
        const { transform, ...rest } = toMappingConfig(passed as ValidatedMapping, i);
        return dirOk && transform ? { ...rest, transform } : rest;
      })
    : [];
  return {
    path: typeof hooks.path === "string" && !failed("hooks.path") ? normaliseHookPath(hooks.path) : HOOKS_DEFAULTS.path,
    transformsDir: path.resolve(ctx.configDir, dirOk ? hooks.transformsDir : "."),
    presets: Array.isArray(hooks.presets) ? hooks.presets.map((name: unknown, i) => (presetOk(name, i) ? name : undefined)) : [],
    mappings,
    ...(hooks.mail && !failed("hooks.mail") ? { mail: resolveMail(hooks.mail, defaultMailHookUrl(raw)) } : {}),
    ...(hooks.github && !failed("hooks.github") ? { github: { ...hooks.github, events: [...hooks.github.events] } } : {}),
  };
}

function toHooksConfig(cfg: ValidatedConfig, raw: Readonly<Record<string, unknown>>, ctx: ResolveContext): HooksConfig {
  const { hooks } = cfg;
  const gatewayToken = cfg.gateway?.auth?.token;
  return {
    enabled: hooks.enabled === true,
    ...(hooks.token === undefined ? {} : { tokenSource: hooks.token }),
    ...(gatewayToken === undefined ? {} : { gatewayTokenSource: gatewayToken }),
    path: normaliseHookPath(hooks.path),
    maxBodyBytes: hooks.maxBodyBytes,
    maxFanOut: hooks.maxFanOut,
    maxRenderedBytes: hooks.maxRenderedBytes,
    bodyTimeoutMs: hooks.bodyTimeoutMs,
    allowQueryToken: hooks.allowQueryToken,
    presets: [...hooks.presets],
    mappings: hooks.mappings.map((m, i) => toMappingConfig(m, i)),
    transformsDir: path.resolve(ctx.configDir, hooks.transformsDir),
    transformTimeoutMs: hooks.transformTimeoutMs,
    ...(hooks.mail ? { mail: resolveMail(hooks.mail, defaultMailHookUrl(raw)) } : {}),
    ...(hooks.github ? { github: { ...hooks.github, events: [...hooks.github.events] } } : {}),
    ...(hooks.allowedAgentIds ? { allowedAgentIds: [...hooks.allowedAgentIds] } : {}),
    allowedSessionKeyPrefixes: [...hooks.allowedSessionKeyPrefixes],
    runs: { ...hooks.runs },
    idempotency: { ...hooks.idempotency },
    rateLimit: { ...hooks.rateLimit },
    authThrottle: { ...hooks.authThrottle },
    ledger: { ...hooks.ledger },
    store: toStoreConfig(hooks.store),
    durability: hooks.durability,
    defaultTimeoutSeconds: cfg.agents.defaults.timeoutSeconds,
  };
}

function hasFailure(failedKeys: ReadonlySet<string>, key: string): boolean {
  for (const k of failedKeys) if (k === key || k.startsWith(`${key}.`)) return true;
  return false;
}

/**
 * Reads `hooks.token` (plain, env or file) when hooks are enabled and checks what
 * needs its value: the length and characters of a referenced token, and that it
 * differs from the gateway's own token. Throws one ConfigError listing every
 * problem; a disabled config gets the empty token.
 */
export function resolveHooksSecrets(config: HooksConfig, ctx: ResolveContext): ResolvedHooksConfig {
  if (!config.enabled) return { ...config, token: "" };
  if (config.tokenSource === undefined) throw configError([tokenProblem("is required when hooks.enabled is true")]);
  const r = resolveSecret(config.tokenSource, ctx);
  if (!r.ok) throw configError([tokenProblem(r.reason)]);
  const from = r.source === "plain text" ? "" : `(from ${r.source}) `;
  const problems: KeyedProblem[] = [];
  if (!REGEXES.tokenLength.test(r.value)) problems.push(tokenProblem(`${from}${PATTERN_RULES.tokenLength}`));
  if (!REGEXES.tokenCharset.test(r.value)) problems.push(tokenProblem(`${from}${PATTERN_RULES.tokenCharset}`));
  if (problems.length === 0 && config.gatewayTokenSource !== undefined) {
    // The gateway reports its own unresolvable token; here it only matters when it resolves.
    const g = resolveSecret(config.gatewayTokenSource, ctx);
    if (g.ok && g.value !== "" && g.value === r.value) {
      problems.push(tokenProblem("must differ from gateway.auth.token (use a dedicated hook token)"));
    }
  }
  if (problems.length > 0) throw configError(problems);
  return { ...config, token: r.value };
}

/** Two models with the same alias make the alias ambiguous. */
function checkModelAliases(models: Record<string, { alias?: string }> | undefined): KeyedProblem[] {
  if (!models) return [];
  const seen = new Map<string, string>();
  const problems: KeyedProblem[] = [];
  for (const [ref, entry] of Object.entries(models)) {
    const alias = entry?.alias;
    if (typeof alias !== "string") continue;
    const first = seen.get(alias);
    if (first !== undefined) {
      problems.push({ key: `agents.defaults.models.${ref}.alias`, rule: `repeats the alias of agents.defaults.models.${first} (aliases must be unique)` });
    } else seen.set(alias, ref);
  }
  return problems;
}

/** What is wrong with a hand-written hooks.mail.hookUrl, if anything (a credential in it: mail-hook-url.ts). */
function hookUrlProblem(s: string): string | undefined {
  let url: URL;
  try {
    url = new URL(s);
  } catch {
    return "must be a valid URL";
  }
  const credential = hookUrlCredential(url);
  if (credential === "user:password@") return "must not carry credentials (user:password@): the watcher sends hooks.token in a header";
  if (credential === "query") return "must not carry credentials (a query parameter such as ?token=): the watcher sends hooks.token in a header";
  return undefined;
}

function resolveMail(mail: ValidatedMail, defaultHookUrl: string): MailConfig {
  return {
    ...mail,
    hookUrl: mail.hookUrl ?? defaultHookUrl,
    imap: { ...mail.imap, port: mail.imap.port ?? IMAP_DEFAULT_PORTS[mail.imap.tls] },
  };
}
