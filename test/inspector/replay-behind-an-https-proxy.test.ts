/**
 * Replay (every form POST of a cookie session) behind a TLS-terminating reverse
 * proxy, as docs/dashboard.md now says: the same-origin check compares the
 * browser's `Origin` (https://…) with the gateway's own origin, whose scheme comes
 * from `X-Forwarded-Proto` only when the proxy is listed in `gateway.trustProxy`.
 * Unlisted, the login form already answers 403 `cross_origin` (the docs only spoke
 * of the cookie's Secure flag); listed, login and replay go through and the cookie
 * is Secure.
 */
import request from "supertest";
import { createFakeInspector, delivery } from "../helpers/fake-inspector";
import { OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

const PUBLIC = "gw.example.com";

/** Login and replay as Chromium sends them through the proxy (Host kept, X-Forwarded-Proto: https). */
async function replayThroughProxy(trustProxy: readonly string[] | undefined) {
  const inspector = createFakeInspector({ deliveries: [delivery()] });
  const { app } = uiApp({ inspector, ...(trustProxy ? { trustProxy } : {}) });
  const viaProxy = (r: request.Test) =>
    r
      .set("Host", PUBLIC)
      .set("X-Forwarded-Proto", "https")
      .set("X-Forwarded-For", "203.0.113.7")
      .set("Origin", `https://${PUBLIC}`)
      .set("Sec-Fetch-Site", "same-origin");
  const login = await viaProxy(request(app).post("/ui/login")).type("form").send({ token: OPERATOR_TOKEN });
  const cookieHeader = String(login.headers["set-cookie"]?.[0] ?? "");
  const cookie = cookieHeader.split(";")[0]!;
  const page = await request(app).get("/ui/deliveries/d-1").set("Cookie", cookie);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? "";
  const replay = await viaProxy(request(app).post("/ui/deliveries/d-1/replay")).set("Cookie", cookie).type("form").send({ _csrf: csrf });
  return { login, cookieHeader, replay, inspector };
}

describe("the dashboard behind an https reverse proxy", () => {
  it("with the proxy in gateway.trustProxy: login sets a Secure cookie and Replay goes through", async () => {
    const { login, cookieHeader, replay, inspector } = await replayThroughProxy(["loopback"]);
    expect(login.status).toBe(303);
    expect(cookieHeader).toContain("; Secure");
    expect(replay.status).toBe(303);
    expect(inspector.replayed).toEqual(["d-1"]);
  });

  it("without it: the login form answers 403 cross_origin (the gateway sees http, the browser says https), so nothing can be replayed", async () => {
    const { login, replay, inspector } = await replayThroughProxy(undefined);
    expect(login.status).toBe(403);
    expect(login.text).toContain('data-code="cross_origin"');
    expect(replay.status).toBe(401);
    expect(inspector.replayed).toEqual([]);
  });
});
