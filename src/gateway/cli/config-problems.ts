/**
 * Every config problem in one start: when the gateway's own keys are wrong
 * (`gateway.bnid`), the start used to stop there, and a plugin's problem (a missing
 * `hooks.github.secret`) showed only on the next start. Now the plugins' sections are
 * checked too — against a config built from the plugin sections (src/gateway/config/
 * resolve-gateway-config.ts `fallbackGatewayConfig`), with the plugins activated as for
 * the CLI (nothing starts, nothing listens) — and the error lists both.
 */
import { EventEmitter } from "eventemitter3";
import type { HostEvents } from "../../host-contract/host-api";
import { GatewayConfigError, type ConfigProblem } from "../config/config-error";
import type { GatewayConfig } from "../config/gateway-config";
import type { ConfigSource } from "../config/load-config";
import { fallbackGatewayConfig } from "../config/resolve-gateway-config";
import { createGatewayLogger } from "../logger";
import { discoverConfiguredPlugins } from "../plugins/discover";
import { loadPlugins } from "../plugins/plugin-loader";
import { createCliRuntime } from "../runtime";

/** The problems the enabled plugins find in `config` (their sections and their activation); [] when none. */
export async function pluginConfigProblems(config: GatewayConfig): Promise<ConfigProblem[]> {
  try {
    const loaded = loadPlugins({
      config,
      discovered: discoverConfiguredPlugins(config),
      runtime: createCliRuntime({ models: config.models, mainLastRoute: config.mainLastRoute }),
      events: new EventEmitter<HostEvents>(),
      logger: createGatewayLogger("error"),
    });
    await loaded.deactivate();
    return [];
  } catch (e) {
    return e instanceof GatewayConfigError ? [...e.problems] : [];
  }
}

/**
 * `e` (the gateway's own problems) with the plugins' problems of the same config file added —
 * those `e` does not list already (a plugin command's load fails on the plugins' problems
 * themselves, which must not be printed twice).
 */
export async function withPluginProblems(e: GatewayConfigError, source: ConfigSource | undefined): Promise<GatewayConfigError> {
  if (!source || e.problems.every((p) => p.key === undefined)) return e;
  // The file as read for the start (never read again: a pipe, `--config <(…)`, can be read only once).
  const config = fallbackGatewayConfig(source.raw, { configPath: source.located.path, configDir: source.configDir });
  const listed = new Set(e.problems.map((p) => `${p.key ?? ""}\n${p.rule}`));
  const more = (config ? await pluginConfigProblems(config) : []).filter((p) => !listed.has(`${p.key ?? ""}\n${p.rule}`));
  return more.length > 0 ? GatewayConfigError.of(e.file, [...e.problems, ...more]) : e;
}
