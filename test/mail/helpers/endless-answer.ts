/**
 * A hook URL that answers every request with a chosen status and a body that never ends:
 * a JSON-looking prefix, then filler written as fast as the client reads it. The server
 * stops writing after `capBytes` (so a client that reads everything fills its memory only
 * that far) but still never ends the response. It records what it sent and when the
 * client hung up.
 */
import http from "node:http";
import type net from "node:net";

export interface EndlessAnswer {
  readonly url: string;
  /** Requests received. */
  readonly requests: number;
  /** Bytes of answer bodies handed to the socket so far. */
  readonly bytesSent: number;
  /** Connections the client closed. */
  readonly closedByClient: number;
  close(): Promise<void>;
}

export async function startEndlessAnswer(status: number, opts: { prefix?: string; capBytes?: number } = {}): Promise<EndlessAnswer> {
  const prefix = opts.prefix ?? '{"ok":false,"code":"endless","error":"';
  const cap = opts.capBytes ?? 64 * 1024 * 1024;
  const filler = Buffer.alloc(64 * 1024, "a");
  const sockets = new Set<net.Socket>();
  let requests = 0;
  let bytesSent = 0;
  let closedByClient = 0;
  let closing = false;

  const server = http.createServer((req, res) => {
    requests += 1;
    req.resume();
    res.writeHead(status, { "content-type": "application/json" });
    res.write(prefix);
    bytesSent += prefix.length;
    const pump = (): void => {
      while (bytesSent < cap && !res.destroyed) {
        bytesSent += filler.length;
        if (!res.write(filler)) return void res.once("drain", pump);
      }
    };
    res.on("close", () => {
      if (!closing) closedByClient += 1;
    });
    pump();
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/mail`,
    get requests() {
      return requests;
    },
    get bytesSent() {
      return bytesSent;
    },
    get closedByClient() {
      return closedByClient;
    },
    close: () =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
