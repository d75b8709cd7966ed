/**
 * `gateway webhooks …`: the command group this plugin registers with the host CLI.
 * `webhooks test` (dry run of a mapped hook, or of a stored delivery), `webhooks mail setup|run`,
 * and `webhooks deliveries …` / `webhooks runs …` (the running gateway's ledger and runs).
 */
import type { PluginApi } from "../host-contract/host-api";
import type { HooksConfig } from "../config/types";
import type { MappingEngine } from "../mappings/engine";
import type { ModuleLogger } from "../core/logger";
import { registerDryRunCommand } from "./webhooks-test";
import { registerMailCommands } from "./mail-commands";
import { registerLedgerCommands } from "./ledger-commands";

export interface WebhooksCliDeps {
  config: HooksConfig;
  mappings: MappingEngine;
  logs: { forModule(name: string): ModuleLogger };
}

export function registerWebhooksCli(api: PluginApi, deps: WebhooksCliDeps): void {
  api.registerCli((program) => {
    const webhooks = program.command("webhooks").description("Inbound webhooks: test mapped hooks, the delivery ledger and runs, the mail watcher");
    registerDryRunCommand(webhooks, { api, ...deps });
    registerMailCommands(webhooks, { api, ...deps });
    registerLedgerCommands(webhooks, { api, config: deps.config });
  });
}
