/**
 * CLI mode: activates the enabled plugins with a runtime whose effects throw, to
 * collect the commands they register (`api.registerCli`) on the gateway's
 * commander program — e.g. the hooks plugin's `gateway webhooks …`. No service
 * starts and nothing listens.
 */
import { EventEmitter } from "eventemitter3";
import type { Command } from "commander";
import type { HostEvents } from "../../host-contract/host-api";
import { loadGatewayConfig, type ConfigSource } from "../config/load-config";
import type { GatewayLogger } from "../logger";
import { discoverConfiguredPlugins } from "../plugins/discover";
import { loadPlugins } from "../plugins/plugin-loader";
import { createCliRuntime } from "../runtime";

export interface PluginCommandsOptions {
  program: Command;
  configFlag?: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  logger: GatewayLogger;
  /** The config file as read once by the caller (a pipe, `--config <(…)`, can be read only once). */
  source?: ConfigSource;
}

/** Adds plugin commands to `program`; returns a function that deactivates the plugins. */
export function addPluginCommands(opts: PluginCommandsOptions): () => Promise<void> {
  const { config } = loadGatewayConfig({ configFlag: opts.configFlag, env: opts.env, cwd: opts.cwd, source: opts.source });
  const discovered = discoverConfiguredPlugins(config);
  const loaded = loadPlugins({
    config,
    discovered,
    runtime: createCliRuntime({ models: config.models, mainLastRoute: config.mainLastRoute }),
    events: new EventEmitter<HostEvents>(),
    logger: opts.logger,
  });
  for (const { pluginId, registrar } of loaded.clis) {
    try {
      registrar(opts.program);
    } catch (e) {
      opts.logger.child("cli").error(`plugin ${pluginId} failed to register its commands: ${(e as Error).message}`);
    }
  }
  return () => loaded.deactivate();
}
