/** Shared by the resolveConfig/resolveHooksSecrets tests: both steps, and the message of a refused config. */
import { resolveConfig, resolveHooksSecrets } from "../../src/config/resolve";
import type { ResolvedHooksConfig } from "../../src/config/types";
import { ConfigError } from "../../src/core/errors";

export const TOKEN = "hk_3f9a1c7e5b2d4f60a8c1";
export const CONFIG_DIR = "/srv/gateway";

/** Both steps: validation at activation, then the token read where it is used. */
export function resolve(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, configDir = CONFIG_DIR): ResolvedHooksConfig {
  return resolveHooksSecrets(resolveConfig(raw, { configDir, env }), { configDir, env });
}

/** The ConfigError message for `raw` (fails the test when it resolves). */
export function problem(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, configDir = CONFIG_DIR): string {
  try {
    resolve(raw, env, configDir);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    expect((e as Error).name).toBe("ConfigError");
    return (e as Error).message;
  }
  throw new Error("expected resolveConfig or resolveHooksSecrets to throw");
}
