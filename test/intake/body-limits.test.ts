/**
 * The body stage of SPEC §4.1: 413 from
 * Content-Length before reading, 413 while streaming without buffering past the
 * limit (a 50 MiB chunked upload leaves memory bounded), 408 for a stalled body,
 * 415 for compressed bodies.
 */
import request from "supertest";
import { bearer, createRouterApp, ROUTER_TEST_TOKEN, type RouterApp } from "../helpers/router-app";
import { serve, stallingUpload, uploadChunked, type Served } from "./support/raw-http";

const KiB = 1024;
const MiB = 1024 * KiB;
const auth = { Authorization: `Bearer ${ROUTER_TEST_TOKEN}` };

/** A valid wake body of exactly `size` bytes. */
function wakeBodyOfSize(size: number): string {
  const frame = '{"text":""}';
  return `{"text":"${"x".repeat(size - frame.length)}"}`;
}

describe("body limits: size (413), stalled bodies (408) and compression (415)", () => {
  let h: RouterApp;
  let server: Served | undefined;
  beforeEach(() => {
    h = createRouterApp();
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
    h.close();
  });

  it("a 300 KiB body with Content-Length → 413 payload_too_large (default limit 256 KiB)", async () => {
    const res = await request(h.app)
      .post("/hooks/wake")
      .set(bearer())
      .set("Content-Type", "application/json")
      .send(wakeBodyOfSize(300 * KiB));
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      ok: false,
      code: "payload_too_large",
      error: "The request body is larger than hooks.maxBodyBytes allows (262144 bytes).",
    });
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("a body of exactly hooks.maxBodyBytes is accepted, one byte more is 413", async () => {
    const exact = await request(h.app).post("/hooks/wake").set(bearer()).send(wakeBodyOfSize(262_144));
    expect(exact.status).toBe(200);
    const over = await request(h.app).post("/hooks/wake").set(bearer()).send(wakeBodyOfSize(262_145));
    expect(over.status).toBe(413);
  });

  it("a 300 KiB chunked body → 413 payload_too_large and the connection is closed", async () => {
    server = await serve(h.app);
    const res = await uploadChunked({ port: server.port, path: "/hooks/wake", headers: auth, totalBytes: 300 * KiB });
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe("payload_too_large");
    expect(res.headers?.connection).toBe("close");
    expect(res.headers?.["x-request-id"]).toBeTruthy();
  });

  it("a 50 MiB chunked upload is rejected without reading it: RSS stays bounded", async () => {
    server = await serve(h.app);
    // Warm up the path once so lazy allocations do not count as growth.
    await uploadChunked({ port: server.port, path: "/hooks/wake", headers: auth, totalBytes: 1 * MiB });
    const before = process.memoryUsage().rss;
    const res = await uploadChunked({ port: server.port, path: "/hooks/wake", headers: auth, totalBytes: 50 * MiB });
    const growth = process.memoryUsage().rss - before;
    expect(res.status).toBe(413);
    expect(JSON.parse(res.body).code).toBe("payload_too_large");
    // The server stopped reading and closed the connection long before 50 MiB went through.
    expect(res.bytesWritten).toBeLessThan(25 * MiB);
    expect(growth).toBeLessThan(16 * MiB);
  });

  it("an unauthenticated large upload is refused by auth first (401) and never read", async () => {
    server = await serve(h.app);
    const res = await uploadChunked({ port: server.port, path: "/hooks/wake", totalBytes: 5 * MiB });
    expect(res.status).toBe(401);
    expect(res.headers?.connection).toBe("close");
  });

  it("a body that stalls past hooks.bodyTimeoutMs → 408 request_timeout", async () => {
    h.close();
    h = createRouterApp({ config: { bodyTimeoutMs: 200 } });
    server = await serve(h.app);
    const res = await stallingUpload({ port: server.port, path: "/hooks/wake", headers: auth, contentLength: 100, send: '{"text":' });
    expect(res.status).toBe(408);
    expect(JSON.parse(res.body)).toEqual({ ok: false, code: "request_timeout", error: "The request body did not arrive within 0.2 s." });
    expect(res.headers?.connection).toBe("close");
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("a compressed body (Content-Encoding: gzip) → 415 unsupported_media_type", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).set("Content-Encoding", "gzip").send("\x1f\x8b");
    expect(res.status).toBe(415);
    expect(res.body).toEqual({ ok: false, code: "unsupported_media_type", error: "Content-Encoding gzip is not supported; send the body uncompressed." });
  });

  it("a custom hooks.maxBodyBytes is honoured", async () => {
    h.close();
    h = createRouterApp({ config: { maxBodyBytes: 64 } });
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send(wakeBodyOfSize(65));
    expect(res.status).toBe(413);
    expect(res.body.error).toBe("The request body is larger than hooks.maxBodyBytes allows (64 bytes).");
  });
});
