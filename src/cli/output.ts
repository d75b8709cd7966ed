/**
 * The one way the plugin's CLI commands print (SPEC §9 "Terminal safety"): every
 * human-readable line goes through `text()` (or a table/field built from `cell()`),
 * which escapes control characters a sender may have put in a hook name, a header or
 * a body (src/host-contract/terminal-text.ts), so nothing they chose can drive the
 * operator's terminal. `--json` output goes through `json()`: JSON for programs, whose
 * values are unchanged (JSON escapes C0 controls itself; C1 controls and bidi overrides
 * are written as `\u…` escapes, which parse to the same string). A runtime failure is
 * an escaped message on stderr and exit code 1, without commander's usage hint (that is
 * for a mistyped command line, not for "no delivery with this id"). A failure names the plugin's
 * config keys where the host keeps its section (`PluginApi.configSection`, src/host-contract/config-keys.ts).
 *
 * @example
 *   const out = cliOutput(cmd, api.configSection);
 *   opts.json ? out.json(body) : out.text(formatTable(["ID"], [[cell(id)]], "none"));
 */
import type { Command } from "commander";
import { terminalSafe, terminalSafeJson, terminalSafeLine } from "../host-contract/terminal-text";
import { configKeyNamer, type KeyNamer } from "../host-contract/config-keys";

export interface CliOutput {
  /** Human-readable text on stdout: control characters escaped, line feeds and tabs kept. */
  text(s: string): void;
  /** Human-readable text on stderr (progress and log lines), escaped the same way. */
  note(s: string): void;
  /** `--json`: the value as indented JSON and a newline. */
  json(value: unknown): void;
  /** The message (its keys named) on stderr (escaped; one line, or one per problem), then exit `exitCode` (default 1); never returns. */
  fail(message: string, code: string, exitCode?: number): never;
  /** A sentence of the plugin with its config keys named where the host keeps them (for a `--json` error). */
  named: KeyNamer;
}

/** A value for one line or one table cell: line feeds and tabs escaped too. */
export const cell = terminalSafeLine;

/** `--json` output and a newline: JSON whose C1 controls and bidi overrides are `\u` escapes (src/host-contract/terminal-text.ts). */
export function jsonText(value: unknown): string {
  return `${terminalSafeJson(value)}\n`;
}

export function cliOutput(cmd: Command, configSection?: string): CliOutput {
  const named = configKeyNamer(configSection);
  const cfg = cmd.configureOutput();
  const writeOut = cfg.writeOut ?? ((s: string) => void process.stdout.write(s));
  const writeErr = cfg.writeErr ?? ((s: string) => void process.stderr.write(s));
  return {
    text: (s) => writeOut(terminalSafe(s)),
    note: (s) => writeErr(terminalSafe(s)),
    json: (value) => writeOut(jsonText(value)),
    named,
    fail(message, code, exitCode = 1): never {
      cmd.showHelpAfterError(false);
      return cmd.error(terminalSafe(named(message)), { exitCode, code });
    },
  };
}
