/**
 * Regression: `/ui/deliveries?before=<not an id>` answered 500 `internal_error`
 * with an error-level "unhandled error" log line. The dashboard only checked the
 * value's length; the hooks plugin's inspector applies the ledger's id rule and
 * threw. Now both use the host contract's rule (beforeProblem): the page names the
 * bad filter and leaves it out, like every other filter. Driven through the real
 * plugin's inspector (a fake one does not check `before`).
 */
import request from "supertest";
import { TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { OPERATOR_TOKEN as OPERATOR, pluginUiApp, type PluginUiApp } from "../helpers/ui-app";
import type { GatewayApp } from "../../src/gateway/http/create-app";

describe("the deliveries page with a `before` that names no delivery id", () => {
  let ui: PluginUiApp;
  let plugin: PluginApp;
  let app: GatewayApp;
  const errors = (): string[] => ui.gatewayErrors;

  beforeAll(async () => {
    ui = await pluginUiApp();
    ({ plugin, app } = ui);
    const inspector = plugin.host.inspectors[0]!;
    await request(app).post("/hooks/crm").set("Authorization", `Bearer ${TEST_TOKEN}`).send({ deal: 1 }).expect(200);
    await until(() => inspector.listDeliveries({}).length === 1, "the delivery in the ledger");
  });
  afterAll(() => ui.close());

  it.each([
    ["a character an id never has", "abc!"],
    ["more than 100 characters", "a".repeat(150)],
  ])("%s: the page names the filter, lists the deliveries without it, logs no error", async (_what, before) => {
    const res = await request(app)
      .get(`/ui/deliveries?before=${encodeURIComponent(before)}`)
      .set("Authorization", `Bearer ${OPERATOR}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="filter-problem">before must be the id of a delivery (letters, digits and -).<');
    expect(res.text).toMatch(/<tr data-id="[0-9a-f-]{36}">/);
    expect(errors()).toEqual([]);
  });

  it("the ledger API refuses the same value with the same rule (one rule for both)", async () => {
    const res = await request(app).get("/hooks/deliveries?before=abc!").set("Authorization", `Bearer ${TEST_TOKEN}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      ok: false,
      code: "invalid_request",
      error: "Query parameter before must be the id of a delivery (letters, digits and -).",
    });
  });
});
