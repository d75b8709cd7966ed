/**
 * SPEC §4.2 against the real `gateway` process: HTTP protocol errors Node's
 * parser detects (a malformed chunk, oversized headers) are answered as JSON with
 * X-Request-Id, like every other response, never as a bare 400/431.
 */
import net from "node:net";
import { gatewayPerTest, expectCleanResponse, HOOK_TOKEN, hooksConfig } from "./gateway-setup";

/** Sends `raw` on a fresh connection and collects everything until the server closes it. */
function exchange(port: number, raw: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let received = "";
    socket.setEncoding("utf8");
    socket.on("data", (d: string) => (received += d));
    socket.on("close", () => resolve(received));
    socket.on("error", (e: NodeJS.ErrnoException) => (e.code === "ECONNRESET" || e.code === "EPIPE" ? undefined : reject(e)));
    socket.write(raw);
  });
}

function parse(raw: string): { status: number; headers: Record<string, string>; text: string } {
  const at = raw.indexOf("\r\n\r\n");
  const [statusLine, ...lines] = raw.slice(0, at).split("\r\n");
  const headers: Record<string, string> = {};
  for (const l of lines) headers[l.slice(0, l.indexOf(":")).toLowerCase()] = l.slice(l.indexOf(":") + 1).trim();
  return { status: Number(statusLine!.split(" ")[1]), headers, text: raw.slice(at + 4) };
}

describe("gateway e2e: protocol errors", () => {
  const gateway = gatewayPerTest();

  it("a malformed chunk on /hooks/wake and 20 KB of headers → JSON bodies with X-Request-Id", async () => {
    const gw = await gateway.start({ config: hooksConfig() });
    const badChunk = parse(
      await exchange(
        gw.port,
        `POST /hooks/wake HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${HOOK_TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"tex\r\nzz\r\nnope\r\n`,
      ),
    );
    expect(badChunk.status).toBe(400);
    expect(badChunk.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(badChunk.headers["x-request-id"]).toMatch(/^\S+$/);
    expect(JSON.parse(badChunk.text)).toEqual({ ok: false, code: "invalid_request", error: "The chunked request body is malformed." });
    expectCleanResponse(badChunk.text);

    const bigHeaders = parse(await exchange(gw.port, `POST /hooks/wake HTTP/1.1\r\nHost: x\r\nX-Pad: ${"a".repeat(20_000)}\r\nContent-Length: 2\r\n\r\n{}`));
    expect(bigHeaders.status).toBe(431);
    expect(bigHeaders.headers["x-request-id"]).toMatch(/^\S+$/);
    expect(JSON.parse(bigHeaders.text)).toMatchObject({ ok: false, code: "headers_too_large" });
    expectCleanResponse(bigHeaders.text);
  });
});
