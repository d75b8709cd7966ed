/**
 * A tiny HTTP proxy between `mail run` and the real gateway. It forwards every request
 * and, when asked to hold, keeps the gateway's answer from the client: the gateway has
 * accepted (and journaled) the batch, but the watcher never sees the 2xx — exactly the
 * window between the gateway's answer and the watcher's checkpoint write.
 */
import http from "node:http";
import type net from "node:net";

export interface HoldingProxy {
  readonly url: string;
  /** Where requests go (set once the gateway's port is known). */
  target: string;
  /** Holds the gateway's answer to the next request; `held` resolves with its status once the gateway answered. */
  holdNext(): { held: Promise<number> };
  close(): Promise<void>;
}

export async function startHoldingProxy(path: string): Promise<HoldingProxy> {
  let hold: ((status: number) => void) | undefined;
  const sockets = new Set<net.Socket>();
  const proxy: HoldingProxy = {
    url: "",
    target: "",
    holdNext() {
      return { held: new Promise<number>((resolve) => (hold = resolve)) };
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const onHold = hold;
      hold = undefined;
      const upstream = http.request(`${proxy.target}${req.url ?? "/"}`, { method: req.method, headers: req.headers }, (answer) => {
        const body: Buffer[] = [];
        answer.on("data", (c: Buffer) => body.push(c));
        answer.on("end", () => {
          if (onHold) return onHold(answer.statusCode ?? 0); // never answered: the client is killed while waiting
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          res.end(Buffer.concat(body));
        });
      });
      upstream.on("error", () => {
        res.writeHead(502).end();
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  Object.assign(proxy, { url: `http://127.0.0.1:${port}${path}` });
  return proxy;
}
