/**
 * Regression (issue 35 finding 7, a way around its fix): refusals were folded into one line per
 * client, code and window, but a request whose client closed the connection before its body was
 * read still wrote "hook request aborted by the client" each time. Anyone can send one (a signed
 * path needs no token: a partial body, then the connection closed), so one client could still write
 * the log without bound. Now aborted requests are folded the same way: one line per client and
 * window at info (code client_aborted), their repeats counted in one line when the window ends.
 *
 * On the real HTTP stack: the plugin's routes served by node:http on 127.0.0.1, each request a
 * raw socket that sends its headers and half of its declared body, then is destroyed.
 */
import net from "node:net";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { REFUSAL_LOG_WINDOW_MS } from "../../src/intake/refusal-log";
import { serve, type Served } from "./support/raw-http";

const ABORTS = 40;

/** A POST that declares 100 bytes of body, sends 50 and closes the connection. */
function abortedPost(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: "127.0.0.1" }, () => {
      socket.write(
        `POST /hooks/wake HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n` +
          `{"text":"${"x".repeat(40)}`,
      );
      setTimeout(() => socket.destroy(), 20);
    });
    socket.on("close", () => resolve());
    socket.on("error", () => undefined);
  });
}

describe("aborted requests wrote a log line each", () => {
  let h: PluginApp;
  let server: Served;
  beforeEach(async () => {
    // Only the clock is faked (the window's end is read from it), and it runs with real time; timers and sockets are real.
    jest.useFakeTimers({
      now: Date.now(),
      advanceTimers: true,
      doNotFake: [
        "hrtime",
        "nextTick",
        "performance",
        "queueMicrotask",
        "setImmediate",
        "clearImmediate",
        "setInterval",
        "clearInterval",
        "setTimeout",
        "clearTimeout",
      ],
    });
    h = await startPluginApp({});
    server = await serve(h.app);
  });
  afterEach(async () => {
    await server.close();
    await h.close();
    jest.useRealTimers();
  });

  const abortLines = () => h.host.logs.filter((l) => l.message.startsWith("hook request aborted by the client"));

  it(`${ABORTS} requests from one client aborted mid-body: one info line, then one counted line with the other ${ABORTS - 1} (not ${ABORTS} lines)`, async () => {
    for (let i = 0; i < ABORTS; i++) await abortedPost(server.port);
    // Every aborted request was reported once the server has closed its connection.
    await until(async () => (await server.connections()) === 0, "the server to close the aborted connections", { timeoutMs: 10_000, intervalMs: 20 });
    expect(abortLines().map((l) => [l.level, l.message, (l.meta as { code: string }).code])).toEqual([
      ["info", "hook request aborted by the client", "client_aborted"],
    ]);
    expect(abortLines()[0]!.meta).toMatchObject({ client: "127.0.0.1", method: "POST", status: 0 });

    // The window ends: the next abort's line comes after one counted line for the window's other aborts.
    jest.setSystemTime(Date.now() + REFUSAL_LOG_WINDOW_MS);
    await abortedPost(server.port);
    await until(() => abortLines().length === 3, "the counted line and the next window's first line", { timeoutMs: 10_000, intervalMs: 20 });
    const [, counted, next] = abortLines();
    expect([counted!.level, counted!.message, counted!.meta]).toEqual([
      "info",
      "hook request aborted by the client again: repeats of the line before, counted",
      expect.objectContaining({ client: "127.0.0.1", code: "client_aborted", repeats: ABORTS - 1 }),
    ]);
    expect(next!.message).toBe("hook request aborted by the client");
  });
});
