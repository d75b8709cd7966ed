/**
 * Regression (DNS rebinding): the gateway listens on loopback, but it answered any
 * `Host`. A web page whose DNS name is rebound to 127.0.0.1 talks to the dashboard
 * and the operator API as its own origin: the browser sends no session cookie, but
 * the page could read every unauthenticated page and post wrong operator tokens to
 * the login form, the login link and `/api` until the operator throttle locked the
 * operator's own address out. Now a loopback gateway answers `/ui` and `/api` only
 * for loopback names and `gateway.ui.allowedHosts` (403 `host_not_allowed`, before
 * any credential is looked at); so does `/metrics`, whose wrong tokens count in the
 * same throttle; `/hooks` and `/healthz` answer any Host.
 */
import request from "supertest";
import { dashboardHostRule } from "../../../src/gateway/http/dashboard-hosts";
import type { HttpRouteHandler } from "../../../src/host-contract/http-route";
import { writeJson } from "../../../src/host-contract/json-response";
import { OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";

const REBOUND = "rebound.attacker.test:18789";
const LOOPBACK_BIND = dashboardHostRule("127.0.0.1", undefined);
const ALLOWED_MESSAGE = /gateway\.ui\.allowedHosts/;
const hooks = { prefix: "/hooks", pluginId: "hooks", handler: ((_req, res) => writeJson(res, 200, { ok: true })) satisfies HttpRouteHandler };

/** The gateway app as a loopback gateway builds it (or as `hosts` says). */
const app = (hosts = LOOPBACK_BIND) => uiApp({ hosts, routes: [hooks] }).app;

/** A login form post from `host`, as the dashboard's own page at that origin sends it. */
const loginFrom = (a: ReturnType<typeof app>, host: string, token: string) =>
  request(a).post("/ui/login").set("Host", host).set("Origin", `http://${host}`).set("Sec-Fetch-Site", "same-origin").type("form").send({ token });

describe("a page whose name is rebound to 127.0.0.1 reached the dashboard of a loopback gateway", () => {
  it("its pages answer 403 host_not_allowed, naming gateway.ui.allowedHosts: the login form, the login link, a page, an asset", async () => {
    const a = app();
    for (const path of ["/ui/login", "/ui/login?code=abc", "/ui/deliveries", "/ui/assets/dashboard.css"]) {
      const res = await request(a).get(path).set("Host", REBOUND);
      expect([path, res.status]).toEqual([path, 403]);
      expect(res.text).toContain('data-code="host_not_allowed"');
      expect(res.text).toMatch(ALLOWED_MESSAGE);
    }
  });

  it("the dashboard's API and /api/status answer 403 JSON host_not_allowed", async () => {
    const a = app();
    for (const path of ["/ui/api/events", "/api/status"]) {
      const res = await request(a).get(path).set("Host", REBOUND).set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
      expect([path, res.status, res.body.code]).toEqual([path, 403, "host_not_allowed"]);
      expect(res.body.error).toMatch(ALLOWED_MESSAGE);
    }
  });

  it("its wrong tokens no longer lock the operator out: 10 wrong logins, login codes and Bearer tokens are refused uncounted, and the operator still logs in", async () => {
    const a = app();
    for (let i = 0; i < 10; i++) {
      expect((await loginFrom(a, REBOUND, `wrong-${i}`)).status).toBe(403);
      expect((await request(a).get(`/ui/login?code=wrong-${i}`).set("Host", REBOUND)).status).toBe(403);
      expect((await request(a).get("/api/status").set("Host", REBOUND).set("Authorization", `Bearer wrong-${i}`)).status).toBe(403);
      expect((await request(a).get("/ui/deliveries").set("Host", REBOUND).set("Authorization", `Bearer wrong-${i}`)).status).toBe(403);
    }
    const operator = await loginFrom(a, "127.0.0.1:18789", OPERATOR_TOKEN);
    expect(operator.status).toBe(303);
    expect(String(operator.headers["set-cookie"])).toContain("gw_ui_session=");
  });

  it("loopback names with any port are answered: localhost, a name under .localhost, 127.0.0.0/8, [::1], IPv4-mapped", async () => {
    const a = app();
    for (const host of [
      "localhost",
      "localhost:18789",
      "LOCALHOST.:1",
      "dash.localhost:18789",
      "127.0.0.1",
      "127.8.9.10:80",
      "[::1]:18789",
      "[::ffff:7f00:1]:18789",
    ]) {
      expect([host, (await request(a).get("/ui/login").set("Host", host)).status]).toEqual([host, 200]);
    }
  });

  it("a name in gateway.ui.allowedHosts (a reverse proxy's) is answered, in any case and with any port", async () => {
    const a = app(dashboardHostRule("127.0.0.1", ["dash.example.com"]));
    expect((await request(a).get("/ui/login").set("Host", "Dash.Example.com:8443")).status).toBe(200);
    expect((await loginFrom(a, "dash.example.com", OPERATOR_TOKEN)).status).toBe(303);
    expect((await request(a).get("/ui/login").set("Host", "other.example.com")).status).toBe(403);
    expect((await request(a).get("/ui/login").set("Host", "dash.example.com.attacker.test")).status).toBe(403);
  });

  it("/hooks and /healthz answer any Host (webhook senders come through tunnels forwarding a public Host)", async () => {
    const a = app();
    expect((await request(a).post("/hooks/wake").set("Host", "abc.trycloudflare.com")).status).toBe(200);
    expect((await request(a).get("/healthz").set("Host", "abc.trycloudflare.com")).status).toBe(200);
  });

  it("regression: its wrong Bearer tokens on /metrics locked the operator out of the dashboard (one throttle); /metrics answers 403 host_not_allowed to it, uncounted, and a loopback scrape still works", async () => {
    const a = app();
    for (let i = 0; i < 10; i++) {
      const res = await request(a).get("/metrics").set("Host", REBOUND).set("Authorization", `Bearer wrong-${i}`);
      expect([res.status, res.body.code]).toEqual([403, "host_not_allowed"]);
    }
    expect((await request(a).get("/metrics").set("Host", "localhost:18789").set("Authorization", `Bearer ${OPERATOR_TOKEN}`)).status).toBe(200);
    expect((await loginFrom(a, "127.0.0.1:18789", OPERATOR_TOKEN)).status).toBe(303);
  });

  it("a gateway bound to another address checks no Host unless gateway.ui.allowedHosts is set; then it answers loopback names, its bind address and the list", async () => {
    expect(
      (
        await request(app(dashboardHostRule("0.0.0.0", undefined)))
          .get("/ui/login")
          .set("Host", "nas.lan:18789")
      ).status,
    ).toBe(200);
    const listed = app(dashboardHostRule("192.168.1.5", ["nas.lan"]));
    for (const [host, status] of [
      ["nas.lan:18789", 200],
      ["192.168.1.5:18789", 200],
      ["localhost:18789", 200],
      [REBOUND, 403],
    ] as const) {
      expect([host, (await request(listed).get("/ui/login").set("Host", host)).status]).toEqual([host, status]);
    }
  });
});
