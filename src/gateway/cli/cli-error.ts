/**
 * Errors the gateway CLI prints as one line (`gateway: <message>`) before exiting
 * non-zero. Declared in one catalogue (the factory of src/host-contract/error-catalogue.ts):
 * call sites pass only the arguments, e.g. `cliErrors.portInvalid({ got: "x" })`.
 */
import { createErrorCatalogue } from "../../host-contract/error-catalogue";
import { parsePort, portRule } from "../../host-contract/gateway-address";
import type { HookRole } from "../../host-contract/hook-role";

export const CLI_ERROR_CATALOGUE = {
  portInvalid: { message: '--port {rule} (got "{got}")' },
  roleInvalid: { message: '--role must be "consumer" or "receiver" (got "{got}")' },
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
export const cliErrors = createErrorCatalogue(
  CLI_ERROR_CATALOGUE,
  ({ message }, opts: { exitCode?: number } | undefined) => new CliError(message, opts?.exitCode),
);

/** Parses `--port`: an integer 0–65535 (0 picks a free port). */
export function parsePortOption(value: string): number {
  const port = parsePort(value, 0);
  if (port === undefined) throw cliErrors.portInvalid({ rule: portRule(0), got: value });
  return port;
}

/** Parses `--role`: "consumer" (runs agent turns, the default) or "receiver" (stores and answers only; SPEC §16). */
export function parseRoleOption(value: string): HookRole {
  if (value !== "consumer" && value !== "receiver") throw cliErrors.roleInvalid({ got: value });
  return value;
}
