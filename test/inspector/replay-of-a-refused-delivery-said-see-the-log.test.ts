/**
 * Regression: Replay on a delivery the plugin will not replay — one refused at
 * authentication (401, listed on the page like any other) or one stored without
 * its body — showed "The replay failed; the gateway log has the reason." and wrote
 * an error-level log line, for a refusal the plugin states in one sentence. The
 * page now shows that sentence and its code; the log line is info. Driven through
 * the real plugin's inspector.
 */
import request from "supertest";
import { TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { OPERATOR_TOKEN as OPERATOR, pluginUiApp, type PluginUiApp } from "../helpers/ui-app";
import type { GatewayApp } from "../../src/gateway/http/create-app";

const BEARER = { Authorization: `Bearer ${OPERATOR}` };

describe("Replay of a delivery the plugin refuses to replay", () => {
  let ui: PluginUiApp;
  let plugin: PluginApp;
  let app: GatewayApp;
  const errors = (): string[] => ui.gatewayErrors;

  beforeAll(async () => {
    ui = await pluginUiApp();
    ({ plugin, app } = ui);
  });
  afterAll(() => ui.close());

  it("refused at authentication (401): the page says why, with its code; no error-level log line", async () => {
    await request(app).post("/hooks/crm").set("Authorization", "Bearer wrong-token-0123456789abcdef").send({ deal: 1 }).expect(401);
    const inspector = plugin.host.inspectors[0]!;
    await until(() => inspector.listDeliveries({ status: "401" }).length === 1, "the refused delivery in the ledger");
    const id = inspector.listDeliveries({ status: "401" })[0]!.id;
    const post = await request(app).post(`/ui/deliveries/${id}/replay`).set(BEARER);
    expect(post.status).toBe(303);
    const page = await request(app).get(post.headers.location!).set(BEARER);
    expect(page.text).toContain(
      '<p id="replay-result" role="alert" class="error">This delivery was refused before it was authenticated (unauthorized), so it cannot be replayed: send it again with valid credentials instead. (delivery_not_replayable)</p>',
    );
    expect(errors()).toEqual([]);
    expect(inspector.listDeliveries({})).toHaveLength(1);
  });
});
