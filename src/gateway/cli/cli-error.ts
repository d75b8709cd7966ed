/**
 * Errors the gateway CLI prints as one line (`gateway: <message>`) before exiting
 * non-zero. Declared in one catalogue (the factory of src/host-contract/error-catalogue.ts):
 * call sites pass only the arguments, e.g. `cliErrors.portInvalid({ got: "x" })`.
 */
import { createErrorCatalogue } from "../../host-contract/error-catalogue";

export const CLI_ERROR_CATALOGUE = {
  portInvalid: { message: '--port must be an integer between 0 and 65535 (got "{got}")' },
  pluginInstallFailed: { message: "plugins install: {reason}" },
  pluginUnknown: { message: 'plugins {command}: no plugin with id "{id}" (see gateway plugins list)' },
} as const;

export class CliError extends Error {
  /** Made by `cliErrors.<name>(…)` only, so every message comes from the catalogue. */
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** One factory per catalogue entry: `cliErrors.<name>(args?, { exitCode }?)` (exit code 1 by default). */
export const cliErrors = createErrorCatalogue(CLI_ERROR_CATALOGUE, ({ message }, opts: { exitCode?: number } | undefined) => new CliError(message, opts?.exitCode));

/** Parses `--port`: an integer 0–65535 (0 picks a free port). */
export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw cliErrors.portInvalid({ got: value });
  return Number(value);
}
