/**
 * Raw HTTP clients for what supertest cannot do: chunked uploads that keep
 * writing while the server answers, and bodies that stall. The app is served
 * on 127.0.0.1 on an ephemeral port.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface Served {
  port: number;
  /** Connections the server still has open. */
  connections(): Promise<number>;
  close(): Promise<void>;
}

export async function serve(app: http.RequestListener): Promise<Served> {
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n)))),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface RawResult {
  status?: number;
  headers?: http.IncomingHttpHeaders;
  body: string;
  /** Body bytes handed to the socket before it closed or the upload finished. */
  bytesWritten: number;
  /** Client-side socket error after the server closed the connection, if any. */
  errorCode?: string;
}

/** A POST to 127.0.0.1:`port` at `path` with the caller's headers plus the body framing header. */
function post(opts: { port: number; path: string; headers?: Record<string, string> }, framing: Record<string, string>): http.ClientRequest {
  return http.request({ host: "127.0.0.1", port: opts.port, method: "POST", path: opts.path, headers: { ...(opts.headers ?? {}), ...framing } });
}

/**
 * A POST to 127.0.0.1:`port` whose request line carries `target` as given, e.g. an
 * absolute-form URL (`POST http://host/hooks/x`, as a forward proxy sends it); resolves
 * with the answer's status and body text.
 */
export function postRequestTarget(port: number, target: string, headers: Record<string, string>, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: "POST", path: target, headers: { ...headers, "Content-Length": String(Buffer.byteLength(body)) } },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** Records the response's status, headers and body text into `result`; `onEnd` runs when it has been read. */
function record(res: http.IncomingMessage, result: RawResult, onEnd: () => void): void {
  result.status = res.statusCode;
  result.headers = res.headers;
  res.setEncoding("utf8");
  res.on("data", (d: string) => (result.body += d));
  res.on("end", onEnd);
}

/**
 * Streams `totalBytes` as a chunked body (reusing one chunk, so the client holds
 * no more than `chunkBytes`), never stopping just because a response arrived;
 * resolves once the connection is closed or the upload is complete and answered.
 */
export function uploadChunked(opts: {
  port: number;
  path: string;
  headers?: Record<string, string>;
  totalBytes: number;
  chunkBytes?: number;
  fill?: number;
}): Promise<RawResult> {
  const chunk = Buffer.alloc(opts.chunkBytes ?? 64 * 1024, opts.fill ?? 0x61);
  return new Promise((resolve) => {
    const result: RawResult = { body: "", bytesWritten: 0 };
    let closed = false;
    let responded = false;
    const req = post(opts, { "Transfer-Encoding": "chunked" });
    const done = () => {
      if (closed && (responded || result.errorCode)) resolve(result);
    };
    req.on("response", (res) => {
      record(res, result, () => {
        responded = true;
        done();
      });
      res.on("error", () => {
        responded = true;
        done();
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      result.errorCode = e.code ?? "error";
      done();
    });
    req.on("close", () => {
      closed = true;
      done();
    });
    void (async () => {
      while (!closed && !result.errorCode && result.bytesWritten < opts.totalBytes) {
        const more = req.write(chunk);
        result.bytesWritten += chunk.length;
        if (!more) {
          await new Promise<void>((r) => {
            const go = () => {
              req.off("drain", go);
              req.off("close", go);
              r();
            };
            req.on("drain", go);
            req.on("close", go);
          });
        }
      }
      if (!closed && !result.errorCode) req.end();
    })();
  });
}

/**
 * Sends headers announcing `contentLength` bytes, writes `sendBytes` of them and
 * then stalls; resolves with the response the server sends anyway.
 */
export function stallingUpload(opts: {
  port: number;
  path: string;
  headers?: Record<string, string>;
  contentLength: number;
  send: string;
}): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const result: RawResult = { body: "", bytesWritten: 0 };
    const req = post(opts, { "Content-Length": String(opts.contentLength) });
    req.on("response", (res) => {
      record(res, result, () => {
        req.destroy();
        resolve(result);
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (result.status === undefined) reject(e);
    });
    req.write(opts.send);
    result.bytesWritten = Buffer.byteLength(opts.send);
  });
}
