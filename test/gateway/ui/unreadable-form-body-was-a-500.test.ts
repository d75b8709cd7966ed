/**
 * Regression: a dashboard form the body parser could not read — a charset other
 * than UTF-8, an unknown Content-Encoding, a damaged gzip body — answered 500
 * `internal_error` with an error-level "unhandled error in a route" log line, and
 * anyone could cause it on the login form without a credential. Now it is the
 * client's mistake: 415 `unsupported_media_type` or 400 `invalid_request`, logged
 * at debug, and nothing is done (no login, no replay).
 */
import { gzipSync } from "node:zlib";
import request from "supertest";
import { createFakeInspector, delivery } from "../../helpers/fake-inspector";
import type { HostLogger } from "../../../src/host-contract/host-api";
import { login, OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";

function recordingLogger(): HostLogger & { errors: string[] } {
  const errors: string[] = [];
  return { errors, debug() {}, info() {}, warn() {}, error: (msg) => void errors.push(msg) };
}

/** The login form as the dashboard page sends it; `contentType` / `encoding` / `body` change one thing. */
function loginPost(app: ReturnType<typeof uiApp>["app"], over: { contentType?: string; encoding?: string; body?: string | Buffer } = {}) {
  let r = request(app)
    .post("/ui/login")
    .set("Host", "127.0.0.1")
    .set("Origin", "http://127.0.0.1")
    .set("Content-Type", over.contentType ?? "application/x-www-form-urlencoded");
  if (over.encoding) r = r.set("Content-Encoding", over.encoding);
  // The body goes as these bytes (superagent would otherwise serialize a Buffer as a form).
  return r.serialize((b: unknown) => b as string).send(over.body ?? `token=${OPERATOR_TOKEN}`);
}

const codeOf = (text: string) => /data-code="([a-z_]+)"/.exec(text)?.[1];

describe("a dashboard form whose body cannot be read", () => {
  it("as sent by the page (and gzip-compressed): logs in", async () => {
    const { app } = uiApp();
    expect((await loginPost(app)).status).toBe(303);
    expect((await loginPost(app, { encoding: "gzip", body: gzipSync(`token=${OPERATOR_TOKEN}`) })).status).toBe(303);
  });

  it.each([
    ["a UTF-16 charset", 415, "unsupported_media_type", { contentType: "application/x-www-form-urlencoded; charset=utf-16" }],
    ["an unknown Content-Encoding", 415, "unsupported_media_type", { encoding: "bogus" }],
    ["a gzip Content-Encoding over bytes that are not gzip", 400, "invalid_request", { encoding: "gzip" }],
  ])("login form with %s: %d %s, no session cookie, no error-level log line", async (_what, status, code, over) => {
    const logger = recordingLogger();
    const { app } = uiApp({ logger });
    const res = await loginPost(app, over);
    expect(res.status).toBe(status);
    expect(codeOf(res.text)).toBe(code);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(logger.errors).toEqual([]);
  });

  it("replay of a cookie session with a Latin-9 charset: 415 and nothing is replayed", async () => {
    const logger = recordingLogger();
    const inspector = createFakeInspector({ deliveries: [delivery()] });
    const { app } = uiApp({ inspector, logger });
    const { cookie, csrf } = await login(app);
    const res = await request(app)
      .post("/ui/deliveries/d-1/replay")
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .set("Cookie", cookie)
      .set("Content-Type", "application/x-www-form-urlencoded; charset=latin9")
      .send(`_csrf=${csrf}`);
    expect(res.status).toBe(415);
    expect(codeOf(res.text)).toBe("unsupported_media_type");
    expect(inspector.replayed).toEqual([]);
    expect(logger.errors).toEqual([]);
  });
});
