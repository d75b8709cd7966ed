/**
 * Entry of the `gateway` CLI (bin/gateway.js): `start`, `plugins …` and the
 * commands plugins register. Errors are one line on stderr (`gateway: …`) with a
 * non-zero exit code; `--help` works on every command.
 */
import { Command, CommanderError } from "commander";
import { GatewayConfigError } from "../config/config-error";
import { createGatewayLogger } from "../logger";
import { CliError } from "./cli-error";
import { registerStartCommand } from "./start-command";
import { registerPluginsCommand } from "./plugins-command";
import { addPluginCommands, configFlagOf } from "./plugin-commands";

const BUILTIN_COMMANDS = new Set(["start", "plugins"]);

export interface MainIo {
  out?: (line: string) => void;
  err?: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Resolves when the process should stop (default: first SIGINT/SIGTERM). */
  waitForStop?: () => Promise<string>;
}

function waitForSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (sig: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      // A second signal while stopping forces the exit.
      process.once(sig, () => process.exit(130));
      resolve(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/** The lines of an error's message (a config error lists one problem per line). */
function errorLines(e: unknown): string[] {
  return ((e as Error)?.message ?? String(e)).split("\n");
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[], io: MainIo = {}): Promise<number> {
  const out = io.out ?? ((l: string) => void process.stdout.write(`${l}\n`));
  const err = io.err ?? ((l: string) => void process.stderr.write(`${l}\n`));
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  const args = argv.slice(2);

  const program = new Command("gateway")
    .description("Embedded gateway for the inbound-webhooks plugin: start it, manage plugins, run plugin commands")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({ writeOut: (s) => out(s.replace(/\n$/, "")), writeErr: (s) => err(s.replace(/\n$/, "")) });
  registerStartCommand(program, { out, env, cwd, waitForStop: io.waitForStop ?? waitForSignal });
  registerPluginsCommand(program, { out, env, cwd });

  let deactivate: (() => Promise<void>) | undefined;
  const first = args.find((a) => !a.startsWith("-"));
  if (!first || !BUILTIN_COMMANDS.has(first)) {
    // Plugin commands are needed (or the top-level help should list them).
    const wantsPluginCommand = first !== undefined && first !== "help";
    try {
      deactivate = addPluginCommands({ program, configFlag: configFlagOf(args), env, cwd, logger: createGatewayLogger("warn") });
    } catch (e) {
      if (wantsPluginCommand) {
        for (const line of errorLines(e)) err(`gateway: cannot load plugin commands: ${line}`);
        return 1;
      }
    }
  }

  try {
    await program.parseAsync(argv as string[]);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.code === "commander.helpDisplayed" || e.code === "commander.help" || e.code === "commander.version" ? 0 : e.exitCode || 1;
    }
    if (e instanceof GatewayConfigError || e instanceof CliError) {
      for (const line of errorLines(e)) err(`gateway: ${line}`);
      return e instanceof CliError ? e.exitCode : 1;
    }
    for (const line of errorLines(e)) err(`gateway: ${line}`);
    return 1;
  } finally {
    await deactivate?.();
  }
}
