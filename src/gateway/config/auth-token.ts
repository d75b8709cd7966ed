/**
 * `gateway.auth.token` (the operator token guarding `/api/*`) is read when the
 * gateway starts, not when the config is loaded: `gateway plugins list` and
 * plugin commands work while its variable is unset, and `gateway start` fails
 * naming the key (never the value).
 *
 * @example
 *   const token = resolveGatewayAuthToken(config, process.env); // undefined when not configured
 */
import fs from "node:fs";
import path from "node:path";
import { GatewayConfigError } from "./config-error";
import type { GatewayConfig } from "./gateway-config";

const KEY = "gateway.auth.token";

/** The trimmed operator token, or undefined when none is configured; throws GatewayConfigError when its source fails. */
export function resolveGatewayAuthToken(
  config: Pick<GatewayConfig, "authTokenSource" | "configDir" | "configPath">,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const source = config.authTokenSource;
  const fail = (rule: string) => new GatewayConfigError(config.configPath, KEY, rule);
  if (source === undefined) return undefined;
  if (typeof source === "string") return source.trim();
  if ("env" in source) {
    const value = env[source.env]?.trim();
    if (!value) throw fail(`refers to environment variable ${source.env}, which is not set or empty`);
    return value;
  }
  const file = path.resolve(config.configDir, source.file);
  let value: string;
  try {
    value = fs.readFileSync(file, "utf8").trim();
  } catch (e) {
    throw fail(`refers to file ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? "unreadable"})`);
  }
  if (!value) throw fail(`refers to file ${file}, which is empty`);
  return value;
}
