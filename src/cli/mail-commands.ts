/**
 * `gateway webhooks mail setup` and `gateway webhooks mail run`, added to the
 * `webhooks` command group (src/cli/webhooks.ts). Errors are one clear line on stderr
 * (or a JSON object with --json) and a non-zero exit.
 */
import type { Command } from "commander";
import type { Readable, Writable } from "node:stream";
import type { HooksConfig } from "../config/types";
import { resolveHooksSecrets } from "../config/resolve";
import { redactText } from "../host-contract/redaction";
import { createPluginLogger, type ModuleLogger } from "../logging/logger";
import type { MappingEngine } from "../mappings/engine";
import type { PluginApi } from "../host-contract/host-api";
import { isMailError } from "../mail/mail-error";
import { formatRunSummary, runMailCommand, type MailRunFlags } from "../mail/watcher/mail-run";
import { runMailSetup, type MailSetupFlags } from "../mail/setup/mail-setup";
import { formatSetupSummary, setupJson } from "../mail/setup/setup-report";
import { cell, cliOutput, type CliOutput } from "./output";
import { errorBody } from "../host-contract/json-response";

export interface MailCliDeps {
  api: PluginApi;
  config: HooksConfig;
  mappings: MappingEngine;
  logs: { forModule(name: string): ModuleLogger };
}

/** Test seams: where input comes from and whether it counts as a terminal. */
export interface MailCliIo {
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
  stderr?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
  cwd?: () => string;
  /** Resolves when the run should stop; default: the first SIGINT/SIGTERM. */
  stopSignal?: () => { signal: AbortSignal; dispose(): void };
}

const CONFIG_OPTION: [string, string] = ["-c, --config <file>", "gateway config file (default: $GATEWAY_CONFIG, else ./gateway.config.json)"];

function signalController(): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const on = (): void => controller.abort();
  process.once("SIGINT", on);
  process.once("SIGTERM", on);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
    },
  };
}

function fail(out: CliOutput, name: string, e: unknown, json: boolean | undefined): never {
  if (!isMailError(e)) throw e;
  // The one redaction rule (SPEC §9) as for log lines: a hand-written hook URL may carry a query credential.
  const message = out.named(redactText(e.message));
  if (json) out.json(errorBody(e.code, message));
  return out.fail(`webhooks mail ${name}: ${message}`, `webhooks.mail.${e.code}`);
}

/**
 * A logger that prints the watcher's decisions on stderr (info and up; debug with --verbose).
 * Each line is one log line: the message and every value have line feeds and tabs escaped too,
 * so a value a server chose (an IMAP error text, a hook's error code) cannot start a forged line.
 */
function consoleLogger(out: CliOutput, verbose: boolean): { logger: ModuleLogger; close(): void } {
  const line = (level: string) => (message: string, meta?: Record<string, unknown>) => {
    if (level === "debug" && !verbose) return;
    const { plugin: _p, module: _m, ...rest } = meta ?? {};
    const extra = Object.entries(rest)
      .map(([k, v]) => `${k}=${cell(typeof v === "string" ? v : String(JSON.stringify(v)))}`)
      .join(" ");
    out.note(`${new Date().toISOString()} ${level.toUpperCase()} mail: ${cell(message)}${extra ? ` (${extra})` : ""}\n`);
  };
  const root = createPluginLogger({ debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") }, undefined, out.named);
  return { logger: root.forModule("mail"), close: () => root.close() };
}

/** Adds `mail setup` and `mail run` under `webhooks`. */
export function registerMailCommands(webhooks: Command, deps: MailCliDeps, io: MailCliIo = {}): void {
  const mail = webhooks.command("mail").description("Feed new mail from an IMAP mailbox to the mail preset");

  mail
    .command("setup")
    .description("Write hooks.mail (IMAP settings, hook URL) into the config, enable hooks and the mail preset")
    .option(...CONFIG_OPTION)
    .option("--host <host>", "IMAP server host, e.g. imap.gmail.com")
    .option("--port <port>", "IMAP port (default 993 for tls, 143 otherwise)")
    .option("--tls <mode>", "tls (implicit TLS), starttls or none (default tls)")
    .option("--user <user>", "IMAP login, usually the e-mail address")
    .option("--password-env <NAME>", "environment variable that holds the password")
    .option("--password-file <PATH>", "file that holds the password (one line, chmod 600)")
    .option("--password <value>", "refused: plain-text passwords are never stored")
    .option("--mailbox <name>", "mailbox to watch (default INBOX)")
    .option("--hook-url <url>", "where to post (default http://<gateway.bind>:<gateway.port><hooks.path>/mail)")
    .option("--include-body", "send the plain-text body besides the snippet")
    .option("--no-include-body", "send only the snippet")
    .option("--max-bytes <n>", "max bytes of text per message (default 8192)")
    .option("--auto-start", "let the gateway run the watcher itself")
    .option("--no-auto-start", "run the watcher with `gateway webhooks mail run`")
    .option("--no-input", "never prompt, even on a terminal")
    .option("--json", "print the result as JSON")
    .action(async (flags: MailSetupFlags, cmd: Command) => {
      const stdin = io.stdin ?? process.stdin;
      const out = cliOutput(cmd, deps.api.configSection);
      try {
        const result = await runMailSetup(flags, {
          configPath: deps.api.configPath,
          cwd: io.cwd?.() ?? process.cwd(),
          env: io.env ?? process.env,
          interactive: flags.input !== false && stdin.isTTY === true,
          input: stdin as unknown as Readable,
          promptOutput: (io.stderr ?? process.stderr) as unknown as Writable,
          // Inside OpenClaw the section is written through OpenClaw's own config writer (host API 1.5).
          ...(deps.api.sectionStore ? { store: deps.api.sectionStore, configDir: deps.api.configDir } : {}),
        });
        if (flags.json) out.json(setupJson(result, out.named));
        else out.text(formatSetupSummary(result, out.named));
      } catch (e) {
        fail(out, "setup", e, flags.json);
      }
    });

  mail
    .command("run")
    .description("Watch the mailbox and post new mail to the hook (IDLE, polling fallback, reconnects, retries)")
    .option(...CONFIG_OPTION)
    .option("--once", "process what is new, then exit")
    .option("--since <date|uid>", "start from this date (YYYY-MM-DD) or UID instead of the checkpoint")
    .option("--max-wait <seconds>", "with --once: retry a batch this long while the gateway is down, then exit 1 keeping it for the next run (default 60)")
    .option("--verbose", "also print debug lines")
    .option("--json", "print the final summary as JSON")
    .action(async (flags: MailRunFlags & { verbose?: boolean }, cmd: Command) => {
      const out = cliOutput(cmd, deps.api.configSection);
      const log = consoleLogger(out, flags.verbose === true);
      const stop = (io.stopSignal ?? signalController)();
      try {
        // The hook token is read here, where it is used (a missing variable fails this command only).
        const config = resolveHooksSecrets(deps.config, { configDir: deps.api.configDir, env: io.env });
        const result = await runMailCommand(flags, { api: deps.api, config, logger: log.logger, signal: stop.signal, env: io.env });
        if (flags.json) out.json({ ok: true, stopped: result.stopped, ...result.summary });
        else out.text(formatRunSummary(result, flags.once === true));
        if (flags.once && result.stopped) out.fail("webhooks mail run: interrupted", "webhooks.mail.interrupted", 130);
      } catch (e) {
        fail(out, "run", e, flags.json);
      } finally {
        stop.dispose();
        log.close();
      }
    });
}
