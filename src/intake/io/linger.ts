/**
 * Lingering close of a connection whose request body is refused unread (413,
 * 401, 408, …). The response goes out at once with `Connection: close`; then
 * the write side is closed (FIN) and whatever the client is still uploading is
 * read and thrown away — never buffered — until the client closes, for at most
 * `maxMs` and `maxBytes`, and only then is the socket destroyed.
 *
 * Why: Node destroys a `Connection: close` socket as soon as the response is
 * flushed. A client still uploading then gets a TCP reset, and most clients
 * report that write error (EPIPE / ECONNRESET) instead of the 413 they were
 * sent. Web servers solve this the same way (nginx `lingering_close`).
 *
 * @example
 *   res.setHeader("Connection", "close");
 *   lingerAfterResponse(req);
 *   res.end(body);
 */
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";

/** How long a refused upload may keep its connection after the response. */
export const DEFAULT_LINGER_MS = 5000;
/** How much of a refused upload is read (and discarded) before the connection is cut. */
export const DEFAULT_LINGER_BYTES = 16 * 1024 * 1024;

export interface LingerOptions {
  maxMs?: number;
  maxBytes?: number;
}

/**
 * Call before the response is sent. Starts discarding the rest of the body and
 * replaces Node's close-after-response for this socket with a lingering one.
 */
export function lingerAfterResponse(req: IncomingMessage, options: LingerOptions = {}): void {
  const socket = req.socket as (Socket & { destroySoon?: () => void }) | null;
  if (!socket || socket.destroyed || req.complete) return;
  const maxMs = options.maxMs ?? DEFAULT_LINGER_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_LINGER_BYTES;

  let discarded = 0;
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > maxBytes) socket.destroy();
  });
  req.resume();

  // Node calls socket.destroySoon() once a `Connection: close` response is flushed.
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    const timer = setTimeout(() => this.destroy(), maxMs);
    timer.unref();
    this.once("close", () => clearTimeout(timer));
  };
}
