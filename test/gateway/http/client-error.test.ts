/**
 * Protocol errors Node's parser detects (a malformed chunk, oversized headers, a
 * garbled request line) are answered like every other response (SPEC §4.2): JSON
 * `{ok:false, code, error}`, `X-Request-Id`, then the connection closes.
 * Driven with a raw socket against the gateway app on a real http.Server.
 */
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import type { HttpRouteHandler } from "../../../src/host-contract/http-route";
import { writeJson } from "../../../src/host-contract/json-response";
import { createGatewayApp } from "../../../src/gateway/http/create-app";
import { clientErrorReply, clientErrorResponse, createClientErrorHandler } from "../../../src/gateway/http/client-error";
import { expectCleanBody } from "../../helpers/expect-clean";

interface LogLine {
  message: string;
  meta?: Record<string, unknown>;
}

/** Sends `raw` and collects everything until the server closes the connection. */
function exchange(port: number, raw: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (received += d));
    socket.on("end", () => resolve(received));
    socket.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" ? resolve(received) : reject(e)));
    socket.write(raw);
  });
}

function parse(raw: string): { status: number; headers: Record<string, string>; body: Record<string, unknown>; text: string } {
  const [head, text = ""] = raw.split("\r\n\r\n");
  const [statusLine, ...lines] = head!.split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(":");
    headers[l.slice(0, i).toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body: JSON.parse(text) as Record<string, unknown>, text };
}

describe("gateway: HTTP protocol errors", () => {
  let server: http.Server;
  let port: number;
  const logs: LogLine[] = [];
  let bodyRouteEntered: Promise<void>;
  let enteredBodyRoute: () => void;

  beforeEach(async () => {
    logs.length = 0;
    bodyRouteEntered = new Promise((r) => (enteredBodyRoute = r));
    const hooks: HttpRouteHandler = (req, res) => {
      res.setHeader("X-Request-Id", "route-request-id");
      enteredBodyRoute();
      req.on("data", () => {});
      req.on("end", () => writeJson(res, 200, { ok: true }));
    };
    const logger = {
      debug: () => {},
      info: (message: string, meta?: Record<string, unknown>) => void logs.push({ message, meta }),
      warn: () => {},
      error: () => {},
    };
    let n = 0;
    server = http.createServer(createGatewayApp({ routes: [{ prefix: "/hooks", handler: hooks, pluginId: "p" }], logger, status: () => ({}) }));
    server.on("clientError", createClientErrorHandler({ logger, idGen: () => `gw-${++n}` }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it("headers over the limit → 431 JSON with X-Request-Id", async () => {
    const raw = `POST /hooks/wake HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`;
    const res = parse(await exchange(port, raw));
    expect(res.status).toBe(431);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.headers["x-request-id"]).toBe("gw-1");
    expect(res.headers.connection).toBe("close");
    expect(res.body).toEqual({ ok: false, code: "headers_too_large", error: clientErrorReply("HPE_HEADER_OVERFLOW").error });
    expect(logs).toEqual([
      { message: "client protocol error answered", meta: { requestId: "gw-1", status: 431, code: "headers_too_large", parserCode: "HPE_HEADER_OVERFLOW" } },
    ]);
    expectCleanBody(res.text, []);
  });

  it("a garbled request line → 400 invalid_request", async () => {
    const res = parse(await exchange(port, "THIS IS NOT HTTP\r\n\r\n"));
    expect(res.status).toBe(400);
    expect(res.headers["x-request-id"]).toBe("gw-1");
    expect(res.body).toEqual({ ok: false, code: "invalid_request", error: "The request is not valid HTTP/1.1." });
  });

  it("a malformed chunk in a body a route is reading → 400 with that request's X-Request-Id", async () => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (received += d));
    const ended = new Promise<void>((r) => {
      socket.on("end", () => r());
      socket.on("close", () => r());
    });
    socket.write("POST /hooks/wake HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n");
    await bodyRouteEntered;
    socket.write("zz\r\nnot a chunk\r\n");
    await ended;
    const res = parse(received);
    expect(res.status).toBe(400);
    expect(res.headers["x-request-id"]).toBe("route-request-id");
    expect(res.body).toEqual({ ok: false, code: "invalid_request", error: "The chunked request body is malformed." });
  });

  it("clientErrorResponse frames the JSON body exactly", () => {
    const text = clientErrorResponse({ status: 400, code: "invalid_request", error: "x" }, "id-1");
    expect(text).toBe(
      'HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 49\r\nX-Request-Id: id-1\r\nConnection: close\r\n\r\n{"ok":false,"code":"invalid_request","error":"x"}',
    );
  });
});
