/**
 * Replay (and every POST) of a cookie session needs the session's CSRF token AND
 * a same-origin request; each negative case changes one thing and the replay
 * never happens. A Bearer request carries no ambient credential and needs neither.
 */
import request from "supertest";
import { createFakeInspector, delivery } from "../helpers/fake-inspector";
import { login, OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

async function setup() {
  const ui = uiApp({ inspector: createFakeInspector({ deliveries: [delivery()] }) });
  const auth = await login(ui.app);
  /** A replay POST as the dashboard page sends it; `over` changes one thing. */
  const replay = (over: { origin?: string | null; site?: string | null; csrf?: string | null; cookie?: string } = {}) => {
    let r = request(ui.app)
      .post("/ui/deliveries/d-1/replay")
      .set("Host", "127.0.0.1")
      .set("Cookie", over.cookie ?? auth.cookie);
    const origin = over.origin === undefined ? "http://127.0.0.1" : over.origin;
    if (origin !== null) r = r.set("Origin", origin);
    if (over.site) r = r.set("Sec-Fetch-Site", over.site);
    const csrf = over.csrf === undefined ? auth.csrf : over.csrf;
    return r.type("form").send(csrf === null ? {} : { _csrf: csrf });
  };
  return { ...ui, auth, replay };
}

describe("/ui CSRF protection of replay", () => {
  it("with the CSRF token from the same origin: replayed, then 303 to the delivery page, which shows the result and can be reloaded without replaying again", async () => {
    const { replay, inspector, app, auth } = await setup();
    const res = await replay();
    expect(res.status).toBe(303);
    expect(res.headers.location).toMatch(/^\/ui\/deliveries\/d-1\?result=[\w-]+#replay-result$/);
    expect(inspector.replayed).toEqual(["d-1"]);
    for (let reload = 0; reload < 2; reload++) {
      const page = await request(app).get(res.headers.location!).set("Cookie", auth.cookie);
      expect(page.status).toBe(200);
      expect(page.text).toContain('Replayed: status <span class="status s2xx">202</span>, new delivery <a href="/ui/deliveries/d-1-replay">d-1-replay</a>');
    }
    expect(inspector.replayed).toEqual(["d-1"]);
  });

  it("a replay's result is shown to the session that made it only; another session sees that it is no longer kept", async () => {
    const { replay, app } = await setup();
    const res = await replay();
    const other = await login(app);
    const page = await request(app).get(res.headers.location!).set("Cookie", other.cookie);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("Replayed: status");
    expect(page.text).toContain("This replay&#39;s result is no longer kept");
  });

  it("Chromium's same-origin form POST (Origin: null under no-referrer, Sec-Fetch-Site: same-origin) is accepted", async () => {
    const { replay, inspector } = await setup();
    expect((await replay({ origin: "null", site: "same-origin" })).status).toBe(303);
    expect(inspector.replayed).toEqual(["d-1"]);
  });

  it("without the CSRF token: 403 csrf_token_invalid, nothing replayed", async () => {
    const { replay, inspector } = await setup();
    const res = await replay({ csrf: null });
    expect(res.status).toBe(403);
    expect(res.text).toContain("(csrf_token_invalid)");
    expect(inspector.replayed).toEqual([]);
  });

  it("with a wrong CSRF token: 403 csrf_token_invalid", async () => {
    const { replay, inspector } = await setup();
    const res = await replay({ csrf: "guessed" });
    expect(res.status).toBe(403);
    expect(res.text).toContain("(csrf_token_invalid)");
    expect(inspector.replayed).toEqual([]);
  });

  it("another session's CSRF token: 403 csrf_token_invalid", async () => {
    const { replay, inspector, app } = await setup();
    const other = await login(app);
    const res = await replay({ csrf: other.csrf });
    expect(res.status).toBe(403);
    expect(inspector.replayed).toEqual([]);
  });

  it("a cross-origin Origin, even with the right token: 403 cross_origin", async () => {
    const { replay, inspector } = await setup();
    const res = await replay({ origin: "http://evil.example" });
    expect(res.status).toBe(403);
    expect(res.text).toContain("(cross_origin)");
    expect(inspector.replayed).toEqual([]);
  });

  it("Sec-Fetch-Site: cross-site with Origin: null: 403 cross_origin", async () => {
    const { replay, inspector } = await setup();
    const res = await replay({ origin: "null", site: "cross-site" });
    expect(res.status).toBe(403);
    expect(res.text).toContain("(cross_origin)");
    expect(inspector.replayed).toEqual([]);
  });

  it("neither Origin nor Sec-Fetch-Site: 403 cross_origin", async () => {
    const { replay, inspector } = await setup();
    expect((await replay({ origin: null })).status).toBe(403);
    expect(inspector.replayed).toEqual([]);
  });

  it("without a session at all: the login form (401), nothing replayed", async () => {
    const { replay, inspector } = await setup();
    const res = await replay({ cookie: "gw_ui_session=none" });
    expect(res.status).toBe(401);
    expect(inspector.replayed).toEqual([]);
  });

  it("a Bearer request (no cookie, no browser) replays without CSRF token or Origin", async () => {
    const { app, inspector } = await setup();
    const res = await request(app).post("/ui/deliveries/d-1/replay").set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(res.status).toBe(303);
    expect(inspector.replayed).toEqual(["d-1"]);
    const page = await request(app).get(res.headers.location!).set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(page.text).toContain("Replayed: status");
  });

  it("an unknown delivery id: 404 not_found", async () => {
    const { app, inspector } = await setup();
    const res = await request(app).post("/ui/deliveries/nope/replay").set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(res.status).toBe(404);
    expect(res.text).toContain("(not_found)");
    expect(inspector.replayed).toEqual([]);
  });

  it("the dry-run form is guarded the same way: 403 without the token, no dry run", async () => {
    const ui = uiApp();
    const { cookie } = await login(ui.app);
    const res = await request(ui.app)
      .post("/ui/mappings/dry-run")
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .set("Cookie", cookie)
      .type("form")
      .send({ hook: "github", body: "{}" });
    expect(res.status).toBe(403);
    expect(res.text).toContain("(csrf_token_invalid)");
    expect(ui.inspector.dryRuns).toEqual([]);
  });
});
