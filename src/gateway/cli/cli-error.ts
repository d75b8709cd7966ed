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
export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535) throw new CliError(`--port must be an integer between 0 and 65535 (got "${value}")`);
  return Number(value);
}
