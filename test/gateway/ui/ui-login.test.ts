/**
 * /ui authentication: without a credential only the login form (no data); a
 * wrong token is refused and throttled; a right one sets the session cookie with
 * exact flags; the operator token as Bearer works without a session.
 */
import request from "supertest";
import { clearedSessionCookie, sessionCookie } from "../../../src/gateway/ui/ui-auth";
import type { Request } from "express";
import { createFakeInspector, delivery } from "../../helpers/fake-inspector";
import { login, OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";

const SECRET_HOOK = "visible-only-after-login";

function withData() {
  return uiApp({ inspector: createFakeInspector({ deliveries: [delivery({ hook: SECRET_HOOK })] }) });
}

function formLogin(app: ReturnType<typeof uiApp>["app"], token: string) {
  return request(app).post("/ui/login").set("Host", "127.0.0.1").set("Origin", "http://127.0.0.1").type("form").send({ token });
}

describe("/ui without a credential", () => {
  it.each(["/ui", "/ui/deliveries", "/ui/deliveries/d-1", "/ui/mappings", "/ui/overview"])("%s shows the login form (401) and no data", async (path) => {
    const { app } = withData();
    const res = await request(app).get(path);
    expect(res.status).toBe(401);
    expect(res.type).toBe("text/html");
    expect(res.text).toContain('<form method="post" action="/ui/login"');
    expect(res.text).not.toContain(SECRET_HOOK);
    expect(res.text).not.toContain("Log out");
  });

  it("/ui/api/events answers 401 unauthorized as JSON", async () => {
    const res = await request(withData().app).get("/ui/api/events");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, code: "unauthorized", error: "Log in to the dashboard, or send Authorization: Bearer <gateway.auth.token>." });
  });

  it("a wrong Bearer token gets the login form, not data", async () => {
    const res = await request(withData().app).get("/ui/deliveries").set("Authorization", "Bearer not-the-operator-token");
    expect(res.status).toBe(401);
    expect(res.text).not.toContain(SECRET_HOOK);
  });

  it("a cookie that names no session gets the login form", async () => {
    const res = await request(withData().app).get("/ui/deliveries").set("Cookie", "gw_ui_session=made-up");
    expect(res.status).toBe(401);
    expect(res.text).not.toContain(SECRET_HOOK);
  });

  it("with gateway.auth.token unset the dashboard is disabled (403 forbidden)", async () => {
    const res = await request(uiApp({ authToken: null }).app).get("/ui/api/events");
    expect(res.status).toBe(403);
    expect(res.body.code).toBe("forbidden");
  });
});

describe("/ui login", () => {
  it("a wrong token: 401, the form says so, no cookie", async () => {
    const res = await formLogin(withData().app, "wrong-token");
    expect(res.status).toBe(401);
    expect(res.text).toContain("The token is not valid.");
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("the right token: 303 to the dashboard with an HttpOnly, SameSite=Strict cookie on Path=/ui", async () => {
    const res = await formLogin(withData().app, OPERATOR_TOKEN);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/ui/deliveries");
    expect(res.headers["set-cookie"]).toEqual(["gw_ui_session=rand-1; Path=/ui; Max-Age=43200; HttpOnly; SameSite=Strict"]);
  });

  it("the session cookie shows the data", async () => {
    const { app } = withData();
    const { cookie } = await login(app);
    const res = await request(app).get("/ui/deliveries").set("Cookie", cookie);
    expect(res.status).toBe(200);
    expect(res.text).toContain(SECRET_HOOK);
    expect(res.headers["cache-control"]).toBe("no-store");
  });

  it("the operator token as Bearer shows the data without a session", async () => {
    const res = await request(withData().app).get("/ui/deliveries").set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(SECRET_HOOK);
  });

  it("the cookie is Secure over https", () => {
    const session = { id: "abc", csrf: "x", expiresAt: 0 };
    expect(sessionCookie({ secure: true } as Request, session, 60_000)).toBe("gw_ui_session=abc; Path=/ui; Max-Age=60; HttpOnly; SameSite=Strict; Secure");
    expect(clearedSessionCookie({ secure: true } as Request)).toBe("gw_ui_session=; Path=/ui; Max-Age=0; HttpOnly; SameSite=Strict; Secure");
  });

  it("5 wrong tokens from one address, then 429 with Retry-After — even for the right token", async () => {
    const { app } = withData();
    for (let i = 0; i < 5; i++) expect((await formLogin(app, `wrong-${i}`)).status).toBe(401);
    const blocked = await formLogin(app, OPERATOR_TOKEN);
    expect(blocked.status).toBe(429);
    expect(blocked.headers["retry-after"]).toBe("900");
    expect(blocked.headers["set-cookie"]).toBeUndefined();
  });

  it("a login form posted from another origin is refused (403 cross_origin)", async () => {
    const res = await request(withData().app)
      .post("/ui/login")
      .set("Host", "127.0.0.1")
      .set("Origin", "http://evil.example")
      .type("form")
      .send({ token: OPERATOR_TOKEN });
    expect(res.status).toBe(403);
    expect(res.text).toContain("(cross_origin)");
    expect(res.headers["set-cookie"]).toBeUndefined();
  });

  it("logout ends the session: the same cookie then gets the login form", async () => {
    const { app } = withData();
    const { cookie, csrf } = await login(app);
    const out = await request(app)
      .post("/ui/logout")
      .set("Cookie", cookie)
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .type("form")
      .send({ _csrf: csrf });
    expect(out.status).toBe(303);
    expect(out.headers["set-cookie"]).toEqual(["gw_ui_session=; Path=/ui; Max-Age=0; HttpOnly; SameSite=Strict"]);
    expect((await request(app).get("/ui/deliveries").set("Cookie", cookie)).status).toBe(401);
  });

  it("every /ui answer carries the strict CSP and the no-sniff / no-referrer headers", async () => {
    const res = await request(withData().app).get("/ui/login");
    expect(res.headers["content-security-policy"]).toBe(
      "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
  });
});

describe("/ui/api/session (the Deliveries page asks it when its live feed is refused)", () => {
  it("answers 200 while the login holds, 401 unauthorized once it is gone, and 200 for the Bearer token", async () => {
    const { app } = withData();
    const { cookie, csrf } = await login(app);
    expect((await request(app).get("/ui/api/session").set("Cookie", cookie)).body).toEqual({ ok: true });
    await request(app).post("/ui/logout").set("Cookie", cookie).set("Host", "127.0.0.1").set("Origin", "http://127.0.0.1").type("form").send({ _csrf: csrf });
    const gone = await request(app).get("/ui/api/session").set("Cookie", cookie);
    expect([gone.status, gone.body.code]).toEqual([401, "unauthorized"]);
    expect((await request(app).get("/ui/api/session").set("Authorization", `Bearer ${OPERATOR_TOKEN}`)).status).toBe(200);
  });
});
