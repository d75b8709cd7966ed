/**
 * `resolveConfig()`: the raw gateway config → `ResolvedHooksConfig`, once, at
 * activation. Every problem is collected and reported in ONE `ConfigError` whose
 * message names each key and its rule, joined with "; ":
 *
 *   hooks.token is required when hooks.enabled is true; hooks.maxBodyBytes must be at least 1
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
import { defaultMailHookUrl } from "./mail-hook-url";
import { describeProblems } from "./problems";
import { IMAP_DEFAULT_PORTS, PATTERN_RULES, REGEXES } from "./rules";
import { rawConfigSchema, VALIDATION_OPTIONS } from "./schema";
import { isSecretRef, resolveSecret, type SecretContext, type SecretRef } from "./secrets";

export interface ResolveContext {
  /** Directory of the config file: relative paths (token file, transformsDir) resolve against it. */
  configDir: string;
  /** Environment for `{ env }` references; default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

type ValidatedMail = Omit<MailConfig, "imap" | "hookUrl"> & { hookUrl?: string; imap: Omit<MailConfig["imap"], "port"> & { port?: number } };

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
  const problems = describeProblems(error, rawConfigSchema);
  const failedKeys = new Set((error?.details ?? []).map((d) => d.path.join(".")));
  const cfg = value as ValidatedConfig;
  const hooks = cfg?.hooks;
  const failed = (key: string) => hasFailure(failedKeys, key);

  if (!failed("agents.defaults.models")) problems.push(...checkModelAliases(cfg?.agents?.defaults?.models));
  const hookUrl = hooks?.mail?.hookUrl;
  if (hookUrl !== undefined && !failed("hooks.mail.hookUrl") && !isUrl(hookUrl)) {
    problems.push("hooks.mail.hookUrl must be a valid URL");
  }

  const enabled = hooks?.enabled === true;
  let token = "";
  if (enabled && hooks.token !== undefined && !failed("hooks.token")) {
    const gatewayToken = failed("gateway") ? undefined : cfg.gateway?.auth?.token;
    const resolved = resolveToken(hooks.token, gatewayToken, ctx);
    if (typeof resolved === "string") token = resolved;
    else problems.push(...resolved.problems);
  }

  if (problems.length > 0) throw new ConfigError(problems.join("; "));

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
    ...(hooks.mail ? { mail: resolveMail(hooks.mail, defaultMailHookUrl(raw)) } : {}),
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
): string | { problems: string[] } {
  const r = resolveSecret(source, ctx);
  if (!r.ok) return { problems: [`hooks.token ${r.reason}`] };
  const from = r.source === "plain text" ? "" : ` (from ${r.source})`;
  const problems: string[] = [];
  if (!REGEXES.tokenLength.test(r.value)) problems.push(`hooks.token${from} ${PATTERN_RULES.tokenLength}`);
  if (!REGEXES.tokenCharset.test(r.value)) problems.push(`hooks.token${from} ${PATTERN_RULES.tokenCharset}`);
  if (problems.length === 0 && gatewayToken !== undefined && (typeof gatewayToken === "string" || isSecretRef(gatewayToken))) {
    // The gateway reports its own unresolvable token; here it only matters when it resolves.
    const g = resolveSecret(gatewayToken, ctx);
    if (g.ok && g.value !== "" && g.value === r.value) {
      problems.push("hooks.token must differ from gateway.auth.token (use a dedicated hook token)");
    }
  }
  return problems.length > 0 ? { problems } : r.value;
}

/** Two models with the same alias make the alias ambiguous. */
function checkModelAliases(models: Record<string, { alias?: string }> | undefined): string[] {
  if (!models) return [];
  const seen = new Map<string, string>();
  const problems: string[] = [];
  for (const [ref, entry] of Object.entries(models)) {
    const alias = entry?.alias;
    if (typeof alias !== "string") continue;
    const first = seen.get(alias);
    if (first !== undefined) {
      problems.push(`agents.defaults.models.${ref}.alias repeats the alias of agents.defaults.models.${first} (aliases must be unique)`);
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

function resolveMail(mail: ValidatedMail, defaultHookUrl: string): MailConfig {
  return {
    ...mail,
    hookUrl: mail.hookUrl ?? defaultHookUrl,
    imap: { ...mail.imap, port: mail.imap.port ?? IMAP_DEFAULT_PORTS[mail.imap.tls] },
  };
}
