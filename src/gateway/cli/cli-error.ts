import { parsePort, portRule } from "../../host-contract/gateway-address";

/** An error the CLI prints as one line (`gateway: <message>`) before exiting non-zero. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** Parses `--port`: an integer 0–65535 (0 picks a free port). */
export function parsePortOption(value: string): number {
  const port = parsePort(value, 0);
  if (port === undefined) throw new CliError(`--port ${portRule(0)} (got "${value}")`);
  return port;
}
