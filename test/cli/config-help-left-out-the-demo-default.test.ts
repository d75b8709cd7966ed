/**
 * Regression: the `--config` help of `gateway webhooks deliveries|runs …` and `webhooks test`
 * said "default: $GATEWAY_CONFIG, else ./gateway.config.json", as if that file were the last
 * resort; without it the gateway runs these commands on its demo default (hooks on, the
 * token in .gateway/hook-token, port 18789), as `gateway start --help` says.
 */
import { Command } from "commander";
import { registerLedgerCommands } from "../../src/cli/ledger-commands";
import { registerDryRunCommand } from "../../src/cli/webhooks-test";
import { createMappingEngine } from "../../src/mappings/engine";
import { createFakeHost } from "../helpers/fake-host";
import { captureLogger, makeConfig } from "../mappings/helpers";

function leaves(cmd: Command): Command[] {
  return cmd.commands.length === 0 ? [cmd] : cmd.commands.flatMap(leaves);
}

it("the --config help of the ledger and test commands names the demo default the gateway falls back to", () => {
  const host = createFakeHost();
  const config = makeConfig();
  const webhooks = new Command("gateway").command("webhooks");
  registerLedgerCommands(webhooks, { api: host.api, config });
  const logs = captureLogger();
  registerDryRunCommand(webhooks, {
    api: host.api,
    config,
    mappings: createMappingEngine({ config, presets: [], logger: logs }),
    logs: { forModule: () => logs },
  });
  const helps = leaves(webhooks).map((c) => [c.name(), c.options.find((o) => o.long === "--config")?.description]);
  expect(helps.map(([name]) => name).sort()).toEqual(["list", "list", "replay", "show", "show", "test"]);
  for (const [, help] of helps) expect(help).toBe("gateway config file (default: $GATEWAY_CONFIG, ./gateway.config.json, else the demo default)");
});
