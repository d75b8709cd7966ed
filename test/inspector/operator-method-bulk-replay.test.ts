/**
 * The operator method `deliveries.replay-filter` (inside OpenClaw the gateway method
 * `inbound-webhooks.deliveries.replay-filter`, operator.write) over the real plugin's inspector:
 * the preview counts 20, the confirmation makes 20 new deliveries, the same confirmation again none;
 * an unknown param and a forged confirm are refused naming them.
 */
import request from "supertest";
import { TEST_TOKEN } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { pluginUiApp, type PluginUiApp } from "../helpers/ui-app";
import { operatorMethods } from "../../src/inspector/operator-methods";

describe("operator method deliveries.replay-filter", () => {
  let ui: PluginUiApp;
  beforeAll(async () => {
    ui = await pluginUiApp();
    for (let i = 0; i < 20; i++) await request(ui.app).post("/hooks/crm").set("Authorization", `Bearer ${TEST_TOKEN}`).send({ deal: i }).expect(200);
    await until(() => ui.plugin.host.inspectors[0]!.listDeliveries({ hook: "crm", limit: 500 }).length === 20, "the 20 deliveries");
  });
  afterAll(() => ui.close());

  it("preview 20 → confirm → 20 new deliveries, once", async () => {
    const inspector = ui.plugin.host.inspectors[0]!;
    const method = operatorMethods({ inspector, logger: { debug() {}, info() {}, warn() {}, error() {} } })["deliveries.replay-filter"]!;
    const ctx = { clientAddress: "127.0.0.1" };
    const preview = (await method.handle({ hook: "crm" }, ctx)) as { preview: { count: number; confirm: string } };
    expect(preview.preview.count).toBe(20);
    const done = (await method.handle({ hook: "crm", confirm: preview.preview.confirm }, ctx)) as { replay: { count: number; repeated: boolean } };
    expect(done.replay).toMatchObject({ count: 20, repeated: false });
    const again = (await method.handle({ hook: "crm", confirm: preview.preview.confirm }, ctx)) as { replay: { count: number; repeated: boolean } };
    expect(again.replay).toMatchObject({ count: 20, repeated: true });
    const replays = () => inspector.listDeliveries({ hook: "crm", limit: 500 }).filter((d) => d.replayOf !== undefined);
    await until(() => replays().length === 20, "the 20 replays");
    await new Promise((r) => setTimeout(r, 100));
    expect(replays()).toHaveLength(20);

    await expect(method.handle({ hook: "crm", limit: "5" }, ctx)).rejects.toMatchObject({ status: 400, code: "invalid_request" });
    await expect(method.handle({ hook: "crm", confirm: "yes" }, ctx)).rejects.toMatchObject({
      status: 400,
      message: "Query parameter confirm must be the confirm value of a preview (the same request without confirm).",
    });
  });
});
