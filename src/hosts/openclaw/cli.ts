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
import { configKeyNamer } from "../../host-contract/config-keys";
import { OPENCLAW_DEFAULTS, SECTION_KEY } from "./config-snapshot";

/** The root command of the plugin in OpenClaw's CLI. */
export const OPENCLAW_CLI_ROOT = "inbound-webhooks";

/** OpenClaw's parse-time descriptor of that root (also declared in openclaw.plugin.json#cliCommands). */
export const OPENCLAW_CLI_DESCRIPTOR = {
  name: OPENCLAW_CLI_ROOT,
  description: "Inbound webhooks: the delivery ledger and runs (list, show, replay), dry runs of mapped hooks, the mail watcher",
  hasSubcommands: true,
} as const;

/**
 * A sentence of the plugin's commands in OpenClaw's terms: OpenClaw's commands instead of the
 * embedded gateway's (`gateway start` → `openclaw gateway run`, `webhooks …` → `inbound-webhooks …`).
 * Its section's keys are OpenClaw's already: the plugin names them so (`PluginApi.configSection`).
 */
export function inOpenClawCliTerms(text: string): string {
  return text
    .replaceAll("`gateway start`", "`openclaw gateway run`")
    .replaceAll("`gateway webhooks ", `\`openclaw ${OPENCLAW_CLI_ROOT} `)
    .replace(/^webhooks(?=[ :])/gm, OPENCLAW_CLI_ROOT);
}

const helpKeys = configKeyNamer(SECTION_KEY);

/** Why `--config` is refused inside OpenClaw. */
const CONFIG_FLAG_REFUSED =
  "--config names an embedded gateway's config file; inside OpenClaw the config is OpenClaw's own (OPENCLAW_CONFIG_PATH, `openclaw config file`)";

/** A help text of the plugin's commands in OpenClaw's terms: its commands, its keys and the plugin's default path there. */
function helpInOpenClawTerms(text: string): string {
  return helpKeys(inOpenClawCliTerms(text)).replaceAll(" /hooks/", ` ${OPENCLAW_DEFAULTS.path}/`);
}

/**
 * `cmd` and every command under it in OpenClaw's terms. Their help (descriptions of commands,
 * options and arguments) was written for the embedded gateway (`hooks.path`, `gateway webhooks
 * mail run`, `POST /hooks/github`). Their failures too: the message of `cmd.error()` is both
 * what commander prints and the error OpenClaw reports again as its "Reason".
 */
function inOpenClawTerms(cmd: Command): void {
  cmd.description(helpInOpenClawTerms(cmd.description()));
  // `--config` is read by the embedded gateway before plugins activate; nothing reads it inside OpenClaw: refused, not ignored.
  const config = cmd.options.find((o) => o.long === "--config");
  if (config) {
    config.hideHelp();
    cmd.hook("preAction", (_this, action) => {
      if (action.getOptionValue("config") !== undefined)
        action.error(`${OPENCLAW_CLI_ROOT}: ${CONFIG_FLAG_REFUSED}`, { exitCode: 1, code: "inbound-webhooks.config.flag" });
    });
  }
  for (const option of cmd.options) option.description = helpInOpenClawTerms(option.description);
  for (const argument of cmd.registeredArguments) argument.description = helpInOpenClawTerms(argument.description);
  const error = cmd.error.bind(cmd);
  cmd.error = (message, opts) => error(inOpenClawCliTerms(message), opts);
  for (const sub of cmd.commands) inOpenClawTerms(sub);
}

/** `program` where the plugin's `command("webhooks")` creates OpenClaw's `inbound-webhooks` root instead (collected in `roots`). */
function underOwnRoot(program: Command, roots: Command[]): Command {
  return new Proxy(program, {
    get(target, prop, receiver) {
      if (prop !== "command") return Reflect.get(target, prop, receiver);
      return (nameAndArgs: string, ...rest: unknown[]) => {
        const own = nameAndArgs.trim() === "webhooks";
        const cmd = (target.command as (...a: unknown[]) => Command).call(target, own ? OPENCLAW_CLI_ROOT : nameAndArgs, ...rest);
        if (own) roots.push(cmd);
        return cmd;
      };
    },
  });
}

/** Adds the plugin's commands to OpenClaw's program. */
export function addToOpenClawCli(program: Command, registrars: readonly CliRegistrar[]): void {
  const roots: Command[] = [];
  const own = underOwnRoot(program, roots);
  for (const register of registrars) register(own);
  for (const root of roots) {
    inOpenClawTerms(root);
  }
}
