import { PassThrough } from "node:stream";
import type { IncomingMessage } from "node:http";
import { readBody } from "../../../src/intake/io/read-body";

function fakeRequest(headers: Record<string, string> = {}): PassThrough & { headers: Record<string, string> } {
  return Object.assign(new PassThrough(), { headers });
}
const asReq = (r: PassThrough) => r as unknown as IncomingMessage;

describe("readBody", () => {
  it("resolves with the whole body", async () => {
    const req = fakeRequest();
    const p = readBody(asReq(req), { limit: 100, timeoutMs: 1000 });
    req.write("ab");
    req.end("cd");
    expect(await p).toEqual({ ok: true, value: Buffer.from("abcd") });
  });

  it("refuses a declared Content-Length over the limit without reading", async () => {
    const req = fakeRequest({ "content-length": "101" });
    const onData = jest.fn();
    const r = await readBody(asReq(req), { limit: 100, timeoutMs: 1000 });
    req.on("data", onData);
    expect(!r.ok && [r.error.code, r.error.message]).toEqual(["payload_too_large", "The request body is larger than hooks.maxBodyBytes allows (100 bytes)."]);
    expect(onData).not.toHaveBeenCalled();
  });

  it("cuts a streamed body at the limit and leaves the stream paused", async () => {
    const req = fakeRequest();
    const p = readBody(asReq(req), { limit: 10, timeoutMs: 1000 });
    req.write(Buffer.alloc(6));
    req.write(Buffer.alloc(6));
    const r = await p;
    expect(!r.ok && r.error.code).toBe("payload_too_large");
    expect(req.isPaused()).toBe(true);
    expect(req.listenerCount("data")).toBe(0);
  });

  it("a body of exactly the limit is fine", async () => {
    const req = fakeRequest();
    const p = readBody(asReq(req), { limit: 10, timeoutMs: 1000 });
    req.end(Buffer.alloc(10));
    const r = await p;
    expect(r.ok && r.value.length).toBe(10);
  });

  it("408 when the body does not complete in time", async () => {
    jest.useFakeTimers();
    try {
      const req = fakeRequest({ "content-length": "50" });
      const p = readBody(asReq(req), { limit: 100, timeoutMs: 30_000 });
      req.write("partial");
      jest.advanceTimersByTime(30_000);
      const r = await p;
      expect(!r.ok && [r.error.code, r.error.message]).toEqual(["request_timeout", "The request body did not arrive within 30 s."]);
    } finally {
      jest.useRealTimers();
    }
  });

  it("a connection closed mid-body resolves with an error instead of hanging", async () => {
    const req = fakeRequest();
    const p = readBody(asReq(req), { limit: 100, timeoutMs: 1000 });
    req.write("part");
    req.destroy();
    const r = await p;
    expect(r.ok).toBe(false);
  });

  it("a body already consumed by another middleware is an internal error, not a hang", async () => {
    const req = fakeRequest();
    req.resume();
    req.end("x");
    await new Promise((r) => req.once("end", r));
    const r = await readBody(asReq(req), { limit: 100, timeoutMs: 1000 });
    expect(!r.ok && r.error.code).toBe("internal_error");
  });
});
