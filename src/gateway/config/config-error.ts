/**
 * A configuration problem found by the gateway: names the file (or "demo default")
 * and the key, rendered as one line by the CLI.
 */
export class GatewayConfigError extends Error {
  constructor(
    /** Config file path, or undefined for the demo default / command-line flags. */
    readonly file: string | undefined,
    /** Dotted key, e.g. `gateway.port`; undefined for syntax errors. */
    readonly key: string | undefined,
    /** The rule that was broken, e.g. `must be an integer between 0 and 65535`. */
    readonly rule: string,
  ) {
    super(`${file ? `invalid config ${file}` : "invalid config"}: ${key ? `${key} ${rule}` : rule}`);
    this.name = "GatewayConfigError";
  }
}
