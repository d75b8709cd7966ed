/**
 * The dashboard's bulk replay over the real plugin's inspector: the filtered deliveries list links
 * "Replay all that match…", the preview counts 20, its form (with the session's CSRF token) replays
 * the 20 once — the same form sent again replays nothing more — and a form without the CSRF token
 * (a cross-site POST) replays nothing.
 */
import request from "supertest";
import { TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { login, OPERATOR_TOKEN, pluginUiApp, type PluginUiApp } from "../helpers/ui-app";
import type { GatewayApp } from "../../src/gateway/http/create-app";

const BEARER = { Authorization: `Bearer ${OPERATOR_TOKEN}` };

describe("dashboard: replay all that match", () => {
  let ui: PluginUiApp;
  let plugin: PluginApp;
  let app: GatewayApp;

  beforeAll(async () => {
    ui = await pluginUiApp();
    ({ plugin, app } = ui);
    for (let i = 0; i < 20; i++) await request(app).post("/hooks/crm").set("Authorization", `Bearer ${TEST_TOKEN}`).send({ deal: i }).expect(200);
    await until(() => plugin.host.inspectors[0]!.listDeliveries({ hook: "crm", limit: 500 }).length === 20, "the 20 deliveries");
  });
  afterAll(() => ui.close());

  const replays = () => plugin.host.inspectors[0]!.listDeliveries({ hook: "crm", limit: 500 }).filter((d) => d.replayOf !== undefined);

  it("the list with a filter links the preview; without a filter it does not", async () => {
    expect((await request(app).get("/ui/deliveries?hook=crm&since=1h").set(BEARER)).text).toContain(
      '<a id="bulk-replay" href="/ui/deliveries/replay?hook=crm&amp;since=1h">Replay all that match…</a>',
    );
    expect((await request(app).get("/ui/deliveries").set(BEARER)).text).not.toContain('id="bulk-replay"');
  });

  it("preview 20 → confirm (CSRF) → 20 new deliveries, once; a cross-site POST replays nothing", async () => {
    const { cookie, csrf } = await login(app);
    const page = await request(app).get("/ui/deliveries/replay?hook=crm&since=1h").set("Cookie", cookie);
    expect(page.status).toBe(200);
    expect(page.text).toContain('<strong id="bulk-count">20</strong>');
    expect(page.text).toContain('<button type="submit">Replay 20 deliveries</button>');
    const field = (name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(page.text)?.[1];
    const form = { hook: field("hook")!, since: field("since")!, confirm: field("confirm")! };
    expect(form.hook).toBe("crm");
    expect(form.since).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);

    const send = (fields: Record<string, string>) =>
      request(app).post("/ui/deliveries/replay").set("Cookie", cookie).set("Origin", "http://127.0.0.1").set("Host", "127.0.0.1").type("form").send(fields);
    const crossSite = await send(form);
    expect(crossSite.status).toBe(403);
    expect(replays()).toEqual([]);

    const post = await send({ ...form, _csrf: csrf });
    expect(post.status).toBe(303);
    const result = await request(app).get(post.headers.location!).set("Cookie", cookie);
    expect(result.text).toContain("Replayed 20 deliveries (hook crm, since ");
    await until(() => replays().length === 20, "the 20 replays");

    const again = await send({ ...form, _csrf: csrf });
    expect(again.status).toBe(303);
    await new Promise((r) => setTimeout(r, 100));
    expect(replays()).toHaveLength(20);
  });

  it("a bad filter or none: the page says so", async () => {
    const bad = await request(app).get("/ui/deliveries/replay?status=4x").set(BEARER);
    expect(bad.status).toBe(400);
    const none = await request(app).get("/ui/deliveries/replay").set(BEARER);
    expect(none.status).toBe(400);
    expect(none.text).toContain("A bulk replay needs a filter");
  });
});
