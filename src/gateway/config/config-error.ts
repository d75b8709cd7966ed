/**
 * A configuration problem found by the gateway: names the file (or "demo default")
 * and the key, rendered as one line by the CLI. The line's frame comes from one
 * catalogue of templates (src/host-contract/error-catalogue.ts); the problems the
 * gateway itself finds while starting are catalogue entries too, naming their key.
 */
import { createErrorCatalogue } from "../../host-contract/error-catalogue";

/** The frame of the message, by what is known: the file, the key, both or neither. */
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

export class GatewayConfigError extends Error {
  constructor(
    /** Config file path, or undefined for the demo default / command-line flags. */
    readonly file: string | undefined,
    /** Dotted key, e.g. `gateway.port`; undefined for syntax errors. */
    readonly key: string | undefined,
    /** The rule that was broken, e.g. `must be an integer between 0 and 65535`. */
    readonly rule: string,
  ) {
    super(frame(file, key, rule));
    this.name = "GatewayConfigError";
  }
}

/** Problems the gateway finds while starting: each names its key, the template is the rule. */
export const GATEWAY_CONFIG_ERROR_CATALOGUE = {
  portInUse: { key: "gateway.port", message: "{port} is already in use on {bind}" },
  bindUnavailable: { key: "gateway.bind", message: "cannot bind {bind} (address not available)" },
  cannotListen: { key: "gateway.port", message: "cannot listen on {bind}:{port} ({reason})" },
  lastRouteChannelUnknown: { key: "session.main.lastRoute.channel", message: "must be one of: {channels}" },
} as const;

/** One factory per entry: `gatewayConfigErrors.<name>(args, { file })`, `file` the config file (none for the demo default). */
export const gatewayConfigErrors = createErrorCatalogue(
  GATEWAY_CONFIG_ERROR_CATALOGUE,
  ({ entry, message }, opts: { file: string | undefined } | undefined) => new GatewayConfigError(opts?.file, entry.key, message),
);
