/** The gateway's log formats: json lines for machines, aligned (and, on a terminal, coloured) lines for people. */
import { Writable } from "node:stream";
import { createGatewayLogger, defaultLogFormat, MODULE_COLUMN_WIDTH } from "../../src/gateway/logger";

/** A stream collecting lines; `isTTY` as a terminal would report it. */
function sink(isTTY = false) {
  const lines: string[] = [];
  const stream = Object.assign(new Writable({ write: (c: Buffer, _e, cb) => (lines.push(...c.toString().split("\n").filter(Boolean)), cb()) }), { isTTY });
  return { lines, stream };
}

const ISO = "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z";

describe("gateway log formats", () => {
  it("defaults to pretty on a terminal and to json otherwise", () => {
    expect(defaultLogFormat(sink(true).stream)).toBe("pretty");
    expect(defaultLogFormat(sink(false).stream)).toBe("json");
    const piped = sink(false);
    createGatewayLogger("info", piped.stream).child("gateway").info("started", { url: "http://127.0.0.1:1" });
    expect(JSON.parse(piped.lines[0]!)).toMatchObject({ level: "info", label: "gateway", message: "started", url: "http://127.0.0.1:1" });
  });

  it("json: one object per line with ts, level, label, message and the meta; secret-named keys masked; meta cannot overwrite the core keys", () => {
    const { lines, stream } = sink();
    const log = createGatewayLogger("debug", { stream, format: "json" });
    log.child("inbound-webhooks").warn('a "quoted"\nmessage', {
      plugin: "inbound-webhooks",
      module: "http",
      token: "hook-token-0123456789abcdef",
      authorization: "Bearer x",
      ts: "fake",
      status: 401,
    });
    log.child("gateway").debug("detail");
    expect(lines).toHaveLength(2);
    const first = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(first).toEqual({
      ts: expect.stringMatching(new RegExp(`^${ISO}$`)),
      level: "warn",
      label: "inbound-webhooks",
      message: 'a "quoted"\nmessage',
      plugin: "inbound-webhooks",
      module: "http",
      token: "[REDACTED]",
      authorization: "[REDACTED]",
      "meta.ts": "fake",
      status: 401,
    });
    expect(Object.keys(first).slice(0, 4)).toEqual(["ts", "level", "label", "message"]);
    expect(lines.join("\n")).not.toContain("hook-token-0123456789abcdef");
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: "debug", label: "gateway", message: "detail" });
  });

  it("pretty: level and module columns padded so every message starts at the same column; a plugin's module joins its label", () => {
    const { lines, stream } = sink();
    const log = createGatewayLogger("debug", { stream, format: "pretty" });
    log.child("gateway").info("gateway started", { url: "http://x" });
    log.child("inbound-webhooks").warn("hook request rejected", { plugin: "inbound-webhooks", module: "http", status: 401, token: "secret-secret-secret" });
    log.child("plugins").error("plugin broken");
    log.child("gateway").debug("detail");
    expect(lines[0]).toMatch(new RegExp(`^${ISO} INFO  \\[gateway\\] +gateway started \\{"url":"http://x"\\}$`));
    expect(lines[1]).toMatch(new RegExp(`^${ISO} WARN  \\[inbound-webhooks/http\\] +hook request rejected \\{"status":401,"token":"\\[REDACTED\\]"\\}$`));
    const starts = [
      ["gateway started", 0],
      ["hook request rejected", 1],
      ["plugin broken", 2],
      ["detail", 3],
    ].map(([m, i]) => lines[i as number]!.indexOf(m as string));
    expect(new Set(starts).size).toBe(1);
    expect(starts[0]).toBe(24 + 1 + 5 + 1 + MODULE_COLUMN_WIDTH + 1);
    expect(lines.join("")).not.toContain("\x1b[");
  });

  it("pretty on a terminal is coloured by level, unless NO_COLOR is set", () => {
    const tty = sink(true);
    createGatewayLogger("info", { stream: tty.stream, env: {} }).child("gateway").error("boom");
    expect(tty.lines[0]).toContain("\x1b[31mERROR\x1b[0m");
    const noColour = sink(true);
    createGatewayLogger("info", { stream: noColour.stream, env: { NO_COLOR: "1" } })
      .child("gateway")
      .error("boom");
    expect(noColour.lines[0]).not.toContain("\x1b[");
    expect(noColour.lines[0]).toMatch(/ ERROR \[gateway\] +boom$/);
  });
});
