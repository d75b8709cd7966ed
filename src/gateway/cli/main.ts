/**
 * Entry of the `gateway` CLI (bin/gateway.js): `start`, `plugins …` and the
 * commands plugins register. Errors are one line on stderr (`gateway: …`) with a
 * non-zero exit code; `--help` works on every command, `--version` prints the
 * package's version.
 *
 * Command modules load lazily: `start` and `plugins …` require their implementation
 * when they run, and plugins are activated (their code loaded) only for a plugin
 * command or its help. `gateway --help` lists plugin command groups from the
 * manifests (`contributes.cliCommands`) without running plugin code, so it answers
 * without loading the gateway, the plugins or their dependencies.
 */
import { Command, CommanderError } from "commander";
import { GatewayConfigError } from "../config/config-error";
import { terminalSafeLine } from "../../host-contract/terminal-text";
import { CliError } from "./cli-error";
import { registerStartCommand } from "./start-command";
import { registerPluginsCommand } from "./plugins-command";
import { commandWords, configFlagOf, packageVersion } from "./cli-args";

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
      // A second signal while stopping, SIGINT or SIGTERM whichever came first, forces the exit.
      const force = () => process.exit(130);
      process.once("SIGINT", force);
      process.once("SIGTERM", force);
      resolve(sig);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}

/**
 * Writes lines to stdout or stderr, whose reader may go away (`gateway start | head -1`):
 * once the pipe is closed (EPIPE) later lines are dropped instead of an unhandled
 * error's stack, and the command carries on (a started gateway keeps serving).
 */
function lineWriter(stream: NodeJS.WriteStream): (line: string) => void {
  let closed = false;
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    closed = true;
  });
  return (line) => {
    if (!closed && !stream.destroyed) stream.write(`${line}\n`);
  };
}

/** The lines of an error's message (a config error lists one problem per line), control characters escaped. */
function errorLines(e: unknown): string[] {
  return ((e as Error)?.message ?? String(e)).split("\n").map(terminalSafeLine);
}

/** A command-line error of commander (`error: unknown option '--x'`) as the CLI's other errors read: `gateway: …`, control characters escaped. */
function commandLineError(text: string): string {
  return text
    .replace(/^error: /, "gateway: ")
    .split("\n")
    .map(terminalSafeLine)
    .join("\n");
}

/** Whether argv asks for help (`--help`/`-h` before any `--`, or `gateway help <command>`). */
function wantsHelp(args: readonly string[]): boolean {
  const end = args.indexOf("--");
  const options = end === -1 ? args : args.slice(0, end);
  return options.includes("--help") || options.includes("-h") || commandWords(args)[0] === "help";
}

interface PluginCommandContext {
  program: Command;
  args: string[];
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * Adds what plugins contribute: for a plugin command (or `help <command>`), the
 * activated plugins' commands; for the top-level help, the groups their manifests
 * declare. Resolves with the plugins' deactivation, or an exit code when a plugin
 * command was asked for and the plugins could not be loaded (every problem of the
 * config file named, the plugins' too, as `start` does).
 */
async function addPluginContributions(ctx: PluginCommandContext, err: (line: string) => void): Promise<(() => Promise<void>) | number | undefined> {
  const words = commandWords(ctx.args);
  const first = words[0];
  if (first !== undefined && BUILTIN_COMMANDS.has(first)) return undefined;
  const wantsPluginCommand = first !== undefined && (first !== "help" || (words[1] !== undefined && !BUILTIN_COMMANDS.has(words[1])));
  const configFlag = configFlagOf(ctx.args);
  if (!wantsPluginCommand) {
    // Top-level help (or an unknown word): list the groups without running plugin code.
    const { declarePluginCommands } = require("./plugin-command-list") as typeof import("./plugin-command-list");
    declarePluginCommands({ program: ctx.program, configFlag, env: ctx.env, cwd: ctx.cwd });
    return undefined;
  }
  let source: import("../config/load-config").ConfigSource | undefined;
  try {
    const { readConfigSource } = require("../config/load-config") as typeof import("../config/load-config");
    const { addPluginCommands } = require("./plugin-commands") as typeof import("./plugin-commands");
    const { createGatewayLogger } = require("../logger") as typeof import("../logger");
    // Read once, as for `start`: a pipe (`--config <(…)`) cannot be read again.
    source = readConfigSource({ configFlag, env: ctx.env, cwd: ctx.cwd });
    return addPluginCommands({ program: ctx.program, configFlag, env: ctx.env, cwd: ctx.cwd, logger: createGatewayLogger("warn"), source });
  } catch (e) {
    // As for `start`: a wrong gateway key does not hide the plugins' problems of the same file.
    const { withPluginProblems } = require("./config-problems") as typeof import("./config-problems");
    const all = e instanceof GatewayConfigError ? await withPluginProblems(e, source) : e;
    for (const line of errorLines(all)) err(`gateway: cannot load plugin commands: ${line}`);
    if (!wantsHelp(ctx.args)) return 1;
    // Help always prints: the commands by name from the manifests, the problems above on stderr.
    const { declarePluginCommandTree } = require("./plugin-command-list") as typeof import("./plugin-command-list");
    declarePluginCommandTree({ program: ctx.program, configFlag, env: ctx.env, cwd: ctx.cwd });
    return undefined;
  }
}

/** Runs the CLI; resolves with the exit code. */
export async function main(argv: readonly string[], io: MainIo = {}): Promise<number> {
  const out = io.out ?? lineWriter(process.stdout);
  const err = io.err ?? lineWriter(process.stderr);
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  const args = argv.slice(2);

  const program = new Command("gateway")
    .description("Embedded gateway for the inbound-webhooks plugin: start it, manage plugins, run plugin commands")
    .version(packageVersion(), "-V, --version", "print the version")
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride()
    .configureOutput({
      writeOut: (s) => out(s.replace(/\n$/, "")),
      writeErr: (s) => err(s.replace(/\n$/, "")),
      outputError: (s, write) => write(commandLineError(s)),
    });
  registerStartCommand(program, { out, env, cwd, waitForStop: io.waitForStop ?? waitForSignal });
  registerPluginsCommand(program, { out, env, cwd });

  const added = args.includes("-V") || args.includes("--version") ? undefined : await addPluginContributions({ program, args, env, cwd }, err);
  if (typeof added === "number") return added;
  const deactivate = added;

  // `gateway help <word>` for a command that does not exist: the same answer as `gateway <word>` (commander printed only the usage).
  const [first, asked] = commandWords(args);
  if (first === "help" && asked !== undefined && asked !== "help" && !program.commands.some((c) => c.name() === asked || c.aliases().includes(asked))) {
    err(`gateway: unknown command '${terminalSafeLine(asked)}'`);
    err("(run with --help for usage)");
    await deactivate?.();
    return 1;
  }

  try {
    await program.parseAsync(argv as string[]);
    return 0;
  } catch (e) {
    if (e instanceof CommanderError) {
      // `commander.help` carries its own code: 0 for `help <command>`, 1 for a command group run without its subcommand (usage on stderr).
      return e.code === "commander.helpDisplayed" || e.code === "commander.version" ? 0 : e.code === "commander.help" ? e.exitCode : e.exitCode || 1;
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
