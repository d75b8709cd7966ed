/**
 * `resolveConfig()`: the raw gateway config → `ResolvedHooksConfig`, once, at
 * activation. Every problem is collected and reported in ONE `ConfigError` whose
 * message has one `<key> <rule>` line per problem, sorted by key:
 *
 *   hooks.maxBodyBytes must be at least 1
 *   hooks.token is required when hooks.enabled is true
 *
 * Messages never contain the token or a stack trace.
 *
 * @example
 *   const config = resolveConfig(api.config, { configDir: api.configDir });
 *   config.path // "/hooks"
 */
import path from "node:path";
import { ConfigError } from "../core/errors";
import type { MailConfig, ResolvedHooksConfig } from "./types";
import { toMappingConfig, type ValidatedMapping } from "./mappings";
import { normaliseHookPath } from "./paths";
import { problemLine, sortProblems, type KeyedProblem } from "../host-contract/config-rules";
import { describeProblemList } from "./problems";
import { IMAP_DEFAULT_PORTS, PATTERN_RULES, REGEXES } from "./rules";
import { rawConfigSchema, VALIDATION_OPTIONS } from "./schema";
import { isSecretRef, resolveSecret, type SecretContext, type SecretRef } from "./secrets";

export interface ResolveContext {
  /** Directory of the config file: relative paths (token file, transformsDir) resolve against it. */
  configDir: string;
  /** Environment for `{ env }` references; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

type ValidatedMail = Omit<MailConfig, "imap"> & { imap: Omit<MailConfig["imap"], "port"> & { port?: number } };

/** The validated config as joi returns it (defaults applied). */
interface ValidatedConfig {
  hooks: Omit<ResolvedHooksConfig, "token" | "mappings" | "mail" | "defaultTimeoutSeconds"> & {
    token?: string | SecretRef;
    mappings: ValidatedMapping[];
    mail?: ValidatedMail;
  };
  agents: { defaults: { timeoutSeconds: number; models?: Record<string, { alias?: string }> } };
  gateway?: { auth?: { token?: string | SecretRef } };
}

/** Validates, applies defaults and resolves secrets; throws one ConfigError listing every problem. */
export function resolveConfig(raw: Readonly<Record<string, unknown>>, ctx: ResolveContext): ResolvedHooksConfig {
  const { value, error } = rawConfigSchema.validate(raw, VALIDATION_OPTIONS);
  const problems = describeProblemList(error, rawConfigSchema);
  const failedKeys = new Set((error?.details ?? []).map((d) => d.path.join(".")));
  const cfg = value as ValidatedConfig;
  const hooks = cfg?.hooks;
  const failed = (key: string) => hasFailure(failedKeys, key);

  if (!failed("agents.defaults.models")) problems.push(...checkModelAliases(cfg?.agents?.defaults?.models));
  const hookUrl = hooks?.mail?.hookUrl;
  if (hookUrl !== undefined && !failed("hooks.mail.hookUrl") && !isUrl(hookUrl)) {
    problems.push({ key: "hooks.mail.hookUrl", rule: "must be a valid URL" });
  }

  const enabled = hooks?.enabled === true;
  let token = "";
  if (enabled && hooks.token !== undefined && !failed("hooks.token")) {
    const gatewayToken = failed("gateway") ? undefined : cfg.gateway?.auth?.token;
    const resolved = resolveToken(hooks.token, gatewayToken, ctx);
    if (typeof resolved === "string") token = resolved;
    else problems.push(...resolved.problems);
  }

  if (problems.length > 0) throw new ConfigError(sortProblems(problems).map(problemLine).join("\n"));

  return {
    enabled,
    token,
    path: normaliseHookPath(hooks.path),
    maxBodyBytes: hooks.maxBodyBytes,
    bodyTimeoutMs: hooks.bodyTimeoutMs,
    allowQueryToken: hooks.allowQueryToken,
    presets: [...hooks.presets],
    mappings: hooks.mappings.map((m, i) => toMappingConfig(m, i)),
    transformsDir: path.resolve(ctx.configDir, hooks.transformsDir),
    transformTimeoutMs: hooks.transformTimeoutMs,
    ...(hooks.mail ? { mail: resolveMail(hooks.mail) } : {}),
    allowedSessionKeyPrefixes: [...hooks.allowedSessionKeyPrefixes],
    runs: { ...hooks.runs },
    idempotency: { ...hooks.idempotency },
    rateLimit: { ...hooks.rateLimit },
    authThrottle: { ...hooks.authThrottle },
    defaultTimeoutSeconds: cfg.agents.defaults.timeoutSeconds,
  };
}

function hasFailure(failedKeys: Set<string>, key: string): boolean {
  for (const k of failedKeys) if (k === key || k.startsWith(`${key}.`)) return true;
  return false;
}

/**
 * Resolves `hooks.token` (plain, env or file) and checks the rules JSON Schema
 * cannot: the length and characters of a referenced token, and that it differs
 * from the gateway's own token.
 */
function resolveToken(
  source: string | SecretRef,
  gatewayToken: string | SecretRef | undefined,
  ctx: SecretContext,
): string | { problems: KeyedProblem[] } {
  const key = "hooks.token";
  const r = resolveSecret(source, ctx);
  if (!r.ok) return { problems: [{ key, rule: r.reason }] };
  const from = r.source === "plain text" ? "" : `(from ${r.source}) `;
  const problems: KeyedProblem[] = [];
  if (!REGEXES.tokenLength.test(r.value)) problems.push({ key, rule: `${from}${PATTERN_RULES.tokenLength}` });
  if (!REGEXES.tokenCharset.test(r.value)) problems.push({ key, rule: `${from}${PATTERN_RULES.tokenCharset}` });
  if (problems.length === 0 && gatewayToken !== undefined && (typeof gatewayToken === "string" || isSecretRef(gatewayToken))) {
    // The gateway reports its own unresolvable token; here it only matters when it resolves.
    const g = resolveSecret(gatewayToken, ctx);
    if (g.ok && g.value !== "" && g.value === r.value) {
      problems.push({ key, rule: "must differ from gateway.auth.token (use a dedicated hook token)" });
    }
  }
  return problems.length > 0 ? { problems } : r.value;
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

function isUrl(s: string): boolean {
  try {
    new URL(s);
    return true;
  } catch {
    return false;
  }
}

function resolveMail(mail: ValidatedMail): MailConfig {
  return {
    ...mail,
    imap: { ...mail.imap, port: mail.imap.port ?? IMAP_DEFAULT_PORTS[mail.imap.tls] },
  };
}
