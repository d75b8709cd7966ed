/**
 * `gateway webhooks …`: the command group this plugin registers with the host CLI.
 * `webhooks test` (dry run of a mapped hook) and `webhooks mail setup|run`.
 */
import type { PluginApi } from "../host-contract/host-api";
import type { HooksConfig } from "../config/types";
import type { MappingEngine } from "../mappings/engine";
import type { ModuleLogger } from "../core/logger";
import { registerDryRunCommand } from "./webhooks-test";
import { registerMailCommands } from "./mail-commands";

export interface WebhooksCliDeps {
  config: HooksConfig;
  mappings: MappingEngine;
  logs: { forModule(name: string): ModuleLogger };
}

export function registerWebhooksCli(api: PluginApi, deps: WebhooksCliDeps): void {
  api.registerCli((program) => {
    const webhooks = program.command("webhooks").description("Inbound webhooks: test mapped hooks, run the mail watcher");
    registerDryRunCommand(webhooks, { api, ...deps });
    registerMailCommands(webhooks, { api, ...deps });
  });
}
