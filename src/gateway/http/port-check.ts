/**
 * A busy port, found before anything else starts: `gateway start` next to a running
 * gateway (or OpenClaw, which uses the same default port) used to load its plugins, open
 * their stores, print their log lines and only then fail to listen. The port is now tried
 * first — a throwaway listener on `gateway.bind:gateway.port`, closed at once — and a busy
 * one stops the start with one line naming the port and the way out. The real listen
 * reports the same line if another process takes the port in between.
 */
import net from "node:net";
import { createErrorCatalogue } from "../../host-contract/error-catalogue";

export const PORT_ERROR_CATALOGUE = {
  portInUse: {
    message:
      "port {port} on {bind} is already in use (another gateway or OpenClaw?); start on another port with `npm start -- --port N` (or `gateway start --port N`), or set gateway.port in {where}",
  },
} as const;

/** The start cannot listen because the port is taken (exit 1, one line; not a config error). */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
}

/** `where` names the config file, or says to write one for the demo default. */
export const portErrors = createErrorCatalogue(PORT_ERROR_CATALOGUE, ({ message }) => new PortInUseError(message));

/** The error for a busy `port` on `bind`; `configPath` undefined for the demo default. */
export function portInUse(bind: string, port: number, configPath: string | undefined): PortInUseError {
  return portErrors.portInUse({ port, bind, where: configPath ?? "a gateway.config.json" });
}

/**
 * Resolves when `port` can be listened on at `bind`; rejects with PortInUseError when
 * it is taken. Any other failure (address not available, permission) resolves: the real
 * listen reports it with its own message. Port 0 (any free port) is not tried.
 */
export function ensurePortFree(bind: string, port: number, configPath: string | undefined): Promise<void> {
  if (port === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" ? reject(portInUse(bind, port, configPath)) : resolve()));
    probe.listen({ port, host: bind, exclusive: true }, () => probe.close(() => resolve()));
  });
}
