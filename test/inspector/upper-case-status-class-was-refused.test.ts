/**
 * Regression: the deliveries page refused `?status=4XX` ("status must be a code like
 * 404 or a class like 4xx") while the ledger API (`/hooks/deliveries?status=4XX`)
 * listed the 4xx deliveries: the status rule was written twice. Both now read the
 * filter with the host contract's rule (statusRange / statusProblem): the same forms
 * accepted, the same sentence for a bad one. Driven through the real plugin's inspector.
 */
import request from "supertest";
import { TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { OPERATOR_TOKEN as OPERATOR, pluginUiApp, type PluginUiApp } from "../helpers/ui-app";
import type { GatewayApp } from "../../src/gateway/http/create-app";

describe("the deliveries page's status filter and the ledger API's are one rule", () => {
  let ui: PluginUiApp;
  let plugin: PluginApp;
  let app: GatewayApp;

  beforeAll(async () => {
    ui = await pluginUiApp();
    ({ plugin, app } = ui);
    const inspector = plugin.host.inspectors[0]!;
    await request(app).post("/hooks/crm").set("Authorization", `Bearer ${TEST_TOKEN}`).send({ deal: 1 }).expect(200);
    await request(app).post("/hooks/no-such-hook").set("Authorization", `Bearer ${TEST_TOKEN}`).send({ deal: 2 }).expect(404);
    await until(() => inspector.listDeliveries({}).length === 2, "both deliveries in the ledger");
  });
  afterAll(() => ui.close());

  const page = (status: string) =>
    request(app)
      .get(`/ui/deliveries?status=${encodeURIComponent(status)}`)
      .set("Authorization", `Bearer ${OPERATOR}`);
  const api = (status: string) =>
    request(app)
      .get(`/hooks/deliveries?status=${encodeURIComponent(status)}`)
      .set("Authorization", `Bearer ${TEST_TOKEN}`);

  it.each(["4XX", "4xx", "404"])("status=%s: the page lists the 404 delivery only, as the API does", async (status) => {
    const res = await page(status);
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('id="filter-problem"');
    expect(res.text.match(/<tr data-id="[0-9a-f-]{36}">/g)).toHaveLength(1);
    expect(res.text).toContain(`data-live="/ui/api/events?status=${status}"`);
    const listed = await api(status);
    expect(listed.status).toBe(200);
    expect(listed.body.deliveries.map((d: { status: number }) => d.status)).toEqual([404]);
  });

  it.each(["4x", "0xx", "4040", "abc"])("status=%s: both refuse it with the same sentence", async (status) => {
    const res = await page(status);
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="filter-problem">status must be an HTTP status (404) or a class (4xx).<');
    const refused = await api(status);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ ok: false, code: "invalid_request", error: "Query parameter status must be an HTTP status (404) or a class (4xx)." });
  });
});
