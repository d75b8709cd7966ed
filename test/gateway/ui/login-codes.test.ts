/**
 * The demo's one-time login link (SPEC §2.2): `/ui` answered 403 in the demo (no
 * operator token), so a new user never saw the dashboard. The demo start now prints
 * `/ui/login?code=…`: one use, a few minutes, straight to the deliveries page, never
 * the operator token; a wrong code counts in the operator throttle like a wrong token.
 */
import request from "supertest";
import { createLoginCodes, DEFAULT_LOGIN_CODE_TTL_MS } from "../../../src/gateway/ui/login-codes";
import { NOW, OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";

function appWithCode(now: () => number = () => NOW) {
  const codes = createLoginCodes({ now });
  const { code } = codes.issue();
  return { ...uiApp({ now, loginCodes: codes }), codes, code };
}

describe("one-time login codes", () => {
  it("a code works once and only until it expires", () => {
    let t = NOW;
    const codes = createLoginCodes({ now: () => t });
    const a = codes.issue();
    const b = codes.issue();
    expect(a.expiresAt).toBe(NOW + DEFAULT_LOGIN_CODE_TTL_MS);
    expect(a.code).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(codes.consume(a.code)).toBe(true);
    expect(codes.consume(a.code)).toBe(false);
    t = b.expiresAt;
    expect(codes.consume(b.code)).toBe(false);
    expect(codes.consume("never-issued")).toBe(false);
  });
});

describe("GET /ui/login?code=", () => {
  it("a right code sets the session cookie and opens the deliveries page; the same link again is refused", async () => {
    const { app, code } = appWithCode();
    const res = await request(app).get(`/ui/login?code=${code}`);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/ui/deliveries");
    const cookie = String(res.headers["set-cookie"]![0]);
    expect(cookie).toMatch(/^gw_ui_session=[^;]+; Path=\/ui; Max-Age=43200; HttpOnly; SameSite=Strict$/);
    const page = await request(app).get("/ui/deliveries").set("Cookie", cookie.split(";")[0]!);
    expect(page.status).toBe(200);
    expect(page.text).toContain("Log out");

    const again = await request(app).get(`/ui/login?code=${code}`);
    expect(again.status).toBe(401);
    expect(again.headers["set-cookie"]).toBeUndefined();
    expect(again.text).toContain("This login link is not valid: it was used already, it expired, or it is mistyped.");
  });

  it("an expired code is refused", async () => {
    let t = NOW;
    const { app, code } = appWithCode(() => t);
    t += DEFAULT_LOGIN_CODE_TTL_MS;
    expect((await request(app).get(`/ui/login?code=${code}`)).status).toBe(401);
  });

  it("wrong codes count in the operator throttle: after 5, the right code and the right token are 429 from that address", async () => {
    const { app, code } = appWithCode();
    for (let i = 0; i < 5; i++) expect((await request(app).get(`/ui/login?code=guess-${i}`)).status).toBe(401);
    const blocked = await request(app).get(`/ui/login?code=${code}`);
    expect(blocked.status).toBe(429);
    expect(blocked.headers["retry-after"]).toBe(String(15 * 60));
    expect((await request(app).get("/metrics").set("Authorization", `Bearer ${OPERATOR_TOKEN}`)).status).toBe(429);
  });

  it("without login codes (a config with its own operator token) a code is never accepted", async () => {
    const { app } = uiApp();
    expect((await request(app).get("/ui/login?code=anything")).status).toBe(401);
  });
});
