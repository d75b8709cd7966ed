/**
 * A configuration problem — or several, found in one pass — detected by the
 * gateway: names the file (or "demo default") and each key, rendered by the CLI
 * as one line per problem:
 *
 *   invalid config /etc/gw/gateway.config.json: hooks.maxBodyBytes must be at least 1
 *   invalid config /etc/gw/gateway.config.json: hooks.token is required when hooks.enabled is true
 */
export interface ConfigProblem {
  /** Dotted key, e.g. `gateway.port`; undefined for syntax errors and whole-file problems. */
  key?: string;
  /** The rule that was broken, e.g. `must be an integer`. */
  rule: string;
}

export class GatewayConfigError extends Error {
  /** Every problem, in the order reported (at least one). */
  readonly problems: readonly ConfigProblem[];

  constructor(
    /** Config file path, or undefined for the demo default / command-line flags. */
    readonly file: string | undefined,
    /** Key of the first problem. */
    readonly key: string | undefined,
    /** Rule of the first problem. */
    readonly rule: string,
    more: readonly ConfigProblem[] = [],
  ) {
    const problems = [{ ...(key === undefined ? {} : { key }), rule }, ...more];
    super(problems.map((p) => `${file ? `invalid config ${file}` : "invalid config"}: ${p.key ? `${p.key} ${p.rule}` : p.rule}`).join("\n"));
    this.name = "GatewayConfigError";
    this.problems = problems;
  }

  /** One error listing `problems` (which must not be empty). */
  static of(file: string | undefined, problems: readonly ConfigProblem[]): GatewayConfigError {
    const [first, ...more] = problems;
    if (!first) throw new Error("GatewayConfigError.of needs at least one problem");
    return new GatewayConfigError(file, first.key, first.rule, more);
  }

  /** The problems of a plugin's ConfigError: one per line of its message. */
  static fromPluginMessage(file: string | undefined, message: string): GatewayConfigError {
    const lines = message.split("\n").filter((l) => l.trim() !== "");
    return GatewayConfigError.of(file, (lines.length > 0 ? lines : [message]).map((rule) => ({ rule })));
  }
}
