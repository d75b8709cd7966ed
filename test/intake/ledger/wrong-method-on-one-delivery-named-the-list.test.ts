/**
 * Regression: a wrong method on one delivery (`DELETE /hooks/deliveries/<id>`,
 * `POST /hooks/deliveries/<id>`) was answered "Only GET is allowed on
 * /hooks/deliveries." — naming the list route, not the one asked. The 405 names
 * the route as the docs write it: `/hooks/deliveries/<id>`.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

describe("a wrong method on one delivery", () => {
  let plugin: PluginApp;
  beforeAll(async () => {
    plugin = await startPluginApp({ hooks: { rateLimit: { enabled: false } } });
  });
  afterAll(() => plugin.close());

  it.each(["delete", "post", "put"] as const)("%s /hooks/deliveries/<id>: 405 naming /hooks/deliveries/<id>, Allow: GET", async (method) => {
    const res = await request(plugin.app)[method]("/hooks/deliveries/0190aaaa-bbbb-7ccc-8ddd-eeeeffff0000").set("Authorization", `Bearer ${TEST_TOKEN}`);
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET");
    expect(res.body).toEqual({ ok: false, code: "method_not_allowed", error: "Only GET is allowed on /hooks/deliveries/<id>." });
  });

  it("the list and the replay keep their own names", async () => {
    const list = await request(plugin.app).post("/hooks/deliveries").set("Authorization", `Bearer ${TEST_TOKEN}`);
    expect(list.body.error).toBe("Only GET is allowed on /hooks/deliveries.");
    const replay = await request(plugin.app).get("/hooks/deliveries/x/replay").set("Authorization", `Bearer ${TEST_TOKEN}`);
    expect(replay.body.error).toBe("Only POST is allowed on /hooks/deliveries/<id>/replay.");
  });
});
