/**
 * The plugin's commands inside OpenClaw's CLI: `openclaw inbound-webhooks …`
 * (`deliveries`, `runs`, `test`, `mail`), the same commands as
 * `gateway webhooks …` with the embedded gateway.
 *
 * Why not `openclaw webhooks …`: OpenClaw's core owns that command (its Gmail
 * Pub/Sub helpers) and resolves it without loading any plugin's CLI, so commands a
 * plugin adds under it are never found (tried with 2026.9.6: nested registration
 * with `parentPath: ["webhooks"]` and `activation.onCommands` both leave
 * `openclaw webhooks deliveries` unknown). The plugin's root is its own id.
 */
import type { Command } from "commander";
import type { CliRegistrar } from "../../host-contract/host-api";

/** The root command of the plugin in OpenClaw's CLI. */
export const OPENCLAW_CLI_ROOT = "inbound-webhooks";

/** OpenClaw's parse-time descriptor of that root (also declared in openclaw.plugin.json#cliCommands). */
export const OPENCLAW_CLI_DESCRIPTOR = {
  name: OPENCLAW_CLI_ROOT,
  description: "Inbound webhooks: the delivery ledger and runs (list, show, replay), dry runs of mapped hooks, the mail watcher",
  hasSubcommands: true,
} as const;

/** `program` where the plugin's `command("webhooks")` creates OpenClaw's `inbound-webhooks` root instead. */
function underOwnRoot(program: Command): Command {
  return new Proxy(program, {
    get(target, prop, receiver) {
      if (prop !== "command") return Reflect.get(target, prop, receiver);
      return (nameAndArgs: string, ...rest: unknown[]) => {
        const name = nameAndArgs.trim() === "webhooks" ? OPENCLAW_CLI_ROOT : nameAndArgs;
        return (target.command as (...a: unknown[]) => Command).call(target, name, ...rest);
      };
    },
  });
}

/** Adds the plugin's commands to OpenClaw's program. */
export function addToOpenClawCli(program: Command, registrars: readonly CliRegistrar[]): void {
  const own = underOwnRoot(program);
  for (const register of registrars) register(own);
}
