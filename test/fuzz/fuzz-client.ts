/** Sends generated requests to an in-process server over one keep-alive connection. */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { FuzzRequest } from "./arbitraries";

export interface FuzzResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

export interface FuzzClient {
  /** Resolves with the response, or `undefined` when the server closed the connection before answering. */
  send(req: FuzzRequest): Promise<FuzzResponse | undefined>;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1:0 with `handler` and returns a client bound to it. */
export async function startFuzzServer(handler: http.RequestListener): Promise<FuzzClient> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return {
    send(req) {
      return new Promise((resolve, reject) => {
        const headers: http.OutgoingHttpHeaders = { ...req.headers };
        const bodyless = req.method === "GET" || req.method === "HEAD";
        // Explicit framing for every method (Node does not chunk OPTIONS/DELETE bodies by default).
        if (!bodyless) {
          if (req.contentLength) headers["content-length"] = req.body.length;
          else headers["transfer-encoding"] = "chunked";
        }
        let settled = false;
        const r = http.request({ host: "127.0.0.1", port, method: req.method, path: req.path, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => {
            settled = true;
            resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") });
          });
          res.on("error", (e) => {
            if (!settled) {
              settled = true;
              reject(e);
            }
          });
        });
        r.setTimeout(20_000, () => r.destroy(new Error(`no answer to ${req.method} ${req.path} within 20 s`)));
        r.on("error", (e: NodeJS.ErrnoException) => {
          if (settled) return;
          settled = true;
          // The server may answer early (413) and close while the body is still being written.
          if (e.code === "ECONNRESET" || e.code === "EPIPE") resolve(undefined);
          else reject(e);
        });
        if (bodyless) {
          r.end();
          return;
        }
        // Chunked bodies are written in pieces, like a streaming sender.
        if (!req.contentLength && req.body.length > 1024) {
          for (let i = 0; i < req.body.length; i += 1024) r.write(req.body.subarray(i, i + 1024));
          r.end();
        } else {
          r.end(req.body);
        }
      });
    },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
