/**
 * Regression: the live feed (`/ui/api/events`) outlived the session that opened
 * it. After "Log out" — or once the 12-hour session expired — an open Deliveries
 * tab kept receiving every new delivery (hook, event, status) for as long as the
 * connection stayed up, although the session no longer existed. Now the feed asks
 * before each event and keep-alive whether its session is still there, and ends.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { until } from "../helpers/until";
import { delivery } from "../helpers/fake-inspector";
import { DEFAULT_SESSION_TTL_MS } from "../../src/gateway/ui/ui-sessions";
import { login, NOW, uiApp } from "../helpers/ui-app";

interface Feed {
  text(): string;
  ended(): boolean;
  close(): void;
}

async function serve(ui: ReturnType<typeof uiApp>): Promise<{ open(cookie: string): Promise<Feed>; close(): Promise<void> }> {
  const server = http.createServer(ui.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const open = (cookie: string) =>
    new Promise<Feed>((resolve, reject) => {
      const req = http.get({ port, host: "127.0.0.1", path: "/ui/api/events", headers: { cookie } }, (res) => {
        expect(res.statusCode).toBe(200);
        let text = "";
        let ended = false;
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => (ended = true));
        resolve({ text: () => text, ended: () => ended, close: () => req.destroy() });
      });
      req.on("error", reject);
    });
  return {
    open,
    close: async () => {
      ui.dashboard.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("a live feed of a cookie session", () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it("ends when its session logs out: the next delivery is not sent to it", async () => {
    const ui = uiApp();
    const server = await serve(ui);
    const { cookie, csrf } = await login(ui.app);
    const other = await login(ui.app);
    const feed = await server.open(cookie);
    const stays = await server.open(other.cookie);
    cleanup.push(
      () => feed.close(),
      () => stays.close(),
      () => server.close(),
    );
    await until(() => feed.text().includes("retry:") && stays.text().includes("retry:"), "both feeds open");
    ui.inspector.emit(delivery({ id: "before-logout", hook: "crm" }));
    await until(() => feed.text().includes("before-logout"), "the delivery before the logout");

    const out = await request(ui.app)
      .post("/ui/logout")
      .set("Host", "127.0.0.1")
      .set("Origin", "http://127.0.0.1")
      .set("Cookie", cookie)
      .type("form")
      .send({ _csrf: csrf });
    expect(out.status).toBe(303);
    ui.inspector.emit(delivery({ id: "after-logout", hook: "crm" }));
    await until(() => feed.ended(), "the logged-out session's feed to end");
    expect(feed.text()).not.toContain("after-logout");
    // Another session's feed is not affected.
    await until(() => stays.text().includes("after-logout"), "the other session's feed to get the delivery");
    expect(stays.ended()).toBe(false);
  });

  it("ends when its session expires, at the next keep-alive", async () => {
    let now = NOW;
    const ui = uiApp({ now: () => now, keepAliveMs: 20 });
    const server = await serve(ui);
    const { cookie } = await login(ui.app);
    const feed = await server.open(cookie);
    cleanup.push(
      () => feed.close(),
      () => server.close(),
    );
    await until(() => feed.text().includes(": keep-alive"), "a keep-alive while the session lives");
    now += DEFAULT_SESSION_TTL_MS;
    await until(() => feed.ended(), "the expired session's feed to end");
    ui.inspector.emit(delivery({ id: "after-expiry" }));
    expect(feed.text()).not.toContain("after-expiry");
    expect((await request(ui.app).get("/ui/api/events").set("Cookie", cookie)).status).toBe(401);
  });
});
