/**
 * A configuration problem — or several, found in one pass — detected by the
 * gateway: names the file (or "demo default") and each key, rendered by the CLI
 * as one line per problem:
 *
 *   invalid config /etc/gw/gateway.config.json: hooks.maxBodyBytes must be at least 1
 *   invalid config /etc/gw/gateway.config.json: hooks.token is required when hooks.enabled is true
 *
 * Each line's frame comes from one catalogue of templates
 * (src/host-contract/error-catalogue.ts); the problems the gateway itself finds
 * while starting are catalogue entries too, naming their key.
 */
import { createErrorCatalogue } from "../../host-contract/error-catalogue";

/** The frame of one line, by what is known: the file, the key, both or neither. */
const FRAMES = createErrorCatalogue(
  {
    inFileAtKey: { message: "invalid config {file}: {key} {rule}" },
    inFile: { message: "invalid config {file}: {rule}" },
    atKey: { message: "invalid config: {key} {rule}" },
    bare: { message: "invalid config: {rule}" },
  },
  ({ message }) => message,
);

function frame(file: string | undefined, key: string | undefined, rule: string): string {
  if (file) return key ? FRAMES.inFileAtKey({ file, key, rule }) : FRAMES.inFile({ file, rule });
  return key ? FRAMES.atKey({ key, rule }) : FRAMES.bare({ rule });
}

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
    super(problems.map((p) => frame(file, p.key, p.rule)).join("\n"));
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
    return GatewayConfigError.of(
      file,
      (lines.length > 0 ? lines : [message]).map((rule) => ({ rule })),
    );
  }
}

/** Problems the gateway finds while starting: each names its key, the template is the rule. */
export const GATEWAY_CONFIG_ERROR_CATALOGUE = {
  bindUnavailable: { key: "gateway.bind", message: "cannot bind {bind} (address not available)" },
  cannotListen: { key: "gateway.port", message: "cannot listen on {bind}:{port} ({reason})" },
  lastRouteChannelUnknown: { key: "session.main.lastRoute.channel", message: "must be one of: {channels}" },
} as const;

/** One factory per entry: `gatewayConfigErrors.<name>(args, { file })`, `file` the config file (none for the demo default). */
export const gatewayConfigErrors = createErrorCatalogue(
  GATEWAY_CONFIG_ERROR_CATALOGUE,
  ({ entry, message }, opts: { file: string | undefined } | undefined) => new GatewayConfigError(opts?.file, entry.key, message),
);
