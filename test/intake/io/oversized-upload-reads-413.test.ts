/**
 * Regression: 8–55 % of senders of a 10 MB body read ECONNRESET / EPIPE instead
 * of the 413, because the socket was destroyed right after the response while
 * they were still uploading. Now the 413 goes out at once with
 * `Connection: close`, the rest of the upload is discarded (never buffered)
 * and the connection is closed once the client is done (lingering close).
 * On the real HTTP stack: the router served by node:http on 127.0.0.1.
 */
import http from "node:http";
import net from "node:net";
import { createRouterApp, ROUTER_TEST_TOKEN, type RouterApp } from "../../helpers/router-app";
import { serve, type Served } from "../support/raw-http";

jest.setTimeout(120_000);

const MiB = 1024 * 1024;
const TEN_MB = 10 * 1000 * 1000;
const body = Buffer.alloc(TEN_MB, 0x61);

interface Outcome {
  status?: number;
  code?: string;
  /** Client error before the response was read (what senders saw instead of the 413). */
  error?: string;
  /** Client error after the response was read. */
  lateError?: string;
}

/** One 10 MB POST with node:http, with Content-Length or chunked; the whole body is handed to the socket. */
function postTenMegabytes(port: number, framing: "content-length" | "chunked", headers: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    const outcome: Outcome = {};
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/hooks/wake",
        agent: false,
        headers: {
          ...headers,
          "Content-Type": "application/json",
          ...(framing === "chunked" ? { "Transfer-Encoding": "chunked" } : { "Content-Length": String(TEN_MB) }),
        },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          outcome.status = res.statusCode;
          outcome.code = (JSON.parse(text) as { code?: string }).code;
        });
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => {
      if (outcome.status === undefined) outcome.error = e.code ?? e.message;
      else outcome.lateError = e.code ?? e.message;
    });
    req.on("close", () => resolve(outcome));
    if (framing === "chunked") {
      for (let i = 0; i < 10; i++) req.write(body.subarray(i * (TEN_MB / 10), (i + 1) * (TEN_MB / 10)));
      req.end();
    } else {
      req.end(body);
    }
  });
}

const count = (outcomes: Outcome[], status: number, code: string) => outcomes.filter((o) => o.status === status && o.code === code && !o.error).length;
const errors = (outcomes: Outcome[]) => outcomes.filter((o) => o.error !== undefined || o.lateError !== undefined).map((o) => o.error ?? o.lateError);

describe("a 10 MB upload reads the 413 instead of a connection reset", () => {
  let h: RouterApp;
  let server: Served;
  const auth = { Authorization: `Bearer ${ROUTER_TEST_TOKEN}` };

  beforeAll(async () => {
    h = createRouterApp();
    server = await serve(h.app);
  });
  afterAll(async () => {
    await server.close();
    h.close();
  });

  it.each(["content-length", "chunked"] as const)("with %s framing: 100 of 100 senders read 413 payload_too_large and see no socket error", async (framing) => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 100; i++) outcomes.push(await postTenMegabytes(server.port, framing, auth));
    expect(errors(outcomes)).toEqual([]);
    expect(count(outcomes, 413, "payload_too_large")).toBe(100);
  });

  it("a 10 MB upload with a wrong token reads the 401, not a reset", async () => {
    const outcomes: Outcome[] = [];
    for (let i = 0; i < 20; i++) outcomes.push(await postTenMegabytes(server.port, "content-length", { Authorization: "Bearer wrong-token-wrong-token" }));
    expect(errors(outcomes)).toEqual([]);
    expect(outcomes.map((o) => o.status)).toEqual(Array(20).fill(401));
  });

  it("after the 413 the server closes its side and keeps discarding the upload (no reset, nothing buffered)", async () => {
    // allowHalfOpen: the client keeps uploading after the server's FIN, like a sender that writes its whole body first.
    const socket = net.connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
    await new Promise<void>((r) => socket.once("connect", () => r()));
    let response = "";
    let serverEnded = false;
    let socketError: string | undefined;
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (response += d));
    socket.on("end", () => (serverEnded = true));
    socket.on("error", (e: NodeJS.ErrnoException) => (socketError = e.code));
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROUTER_TEST_TOKEN}\r\nContent-Length: ${64 * MiB}\r\n\r\n`);
    const chunk = Buffer.alloc(MiB, 0x61);
    const before = process.memoryUsage().rss;
    for (let sent = 0; sent < 12 * MiB && !socket.destroyed; sent += MiB) {
      if (!socket.write(chunk)) {
        await new Promise<void>((r) => {
          socket.once("drain", () => r());
          socket.once("close", () => r());
        });
      }
    }
    const growth = process.memoryUsage().rss - before;
    await new Promise<void>((r) => (serverEnded ? r() : socket.once("end", () => r())));
    expect(socketError).toBeUndefined();
    expect(socket.destroyed).toBe(false);
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    expect(response).toMatch(/\r\nConnection: close\r\n/i);
    expect(response).toContain('"code":"payload_too_large"');
    // 12 MiB went through without the server keeping it (a generous bound: GC may lag behind the discarded chunks).
    expect(growth).toBeLessThan(48 * MiB);
    socket.end();
    await new Promise<void>((r) => socket.once("close", () => r()));
  });

  it("an upload past the linger budget (16 MiB) is cut off: the server does not read for ever", async () => {
    const socket = net.connect({ port: server.port, host: "127.0.0.1", allowHalfOpen: true });
    await new Promise<void>((r) => socket.once("connect", () => r()));
    let response = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (response += d));
    socket.on("error", () => undefined);
    socket.write(`POST /hooks/wake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ROUTER_TEST_TOKEN}\r\nContent-Length: ${256 * MiB}\r\n\r\n`);
    const chunk = Buffer.alloc(MiB, 0x61);
    let sent = 0;
    const closed = new Promise<void>((r) => socket.once("close", () => r()));
    while (!socket.destroyed && sent < 256 * MiB) {
      sent += MiB;
      if (!socket.write(chunk)) await Promise.race([new Promise<void>((r) => socket.once("drain", () => r())), closed]);
    }
    await closed;
    expect(response).toMatch(/^HTTP\/1\.1 413 /);
    // The budget plus what the socket buffers on both sides hold.
    expect(sent).toBeLessThan(64 * MiB);
  });
});
