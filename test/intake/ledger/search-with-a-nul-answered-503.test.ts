/**
 * Regression: a NUL in `search` (`/hooks/deliveries?search=%00`, `search=a%00b`)
 * answered 503 `storage_unavailable` with an error-level "could not be read" log
 * line, and the dashboard's `/ui/deliveries?search=%00` answered 500: FTS5 reads a
 * NUL as the end of the query, so the quoted word never closed. Control characters
 * now separate words, as in the index (the host contract's searchWords): a search of
 * nothing but controls is the usual 400 naming `search`, and `a%00b` is `a b`.
 */
import request from "supertest";
import { TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { until } from "../../helpers/until";
import { OPERATOR_TOKEN as OPERATOR, pluginUiApp, type PluginUiApp } from "../../helpers/ui-app";
import type { GatewayApp } from "../../../src/gateway/http/create-app";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("a search with a NUL or another control character", () => {
  let ui: PluginUiApp;
  let plugin: PluginApp;
  let app: GatewayApp;
  const gatewayErrors = (): string[] => ui.gatewayErrors;
  const pluginErrors = () => plugin.host.logs.filter((l) => l.level === "error").map((l) => l.message);

  beforeAll(async () => {
    ui = await pluginUiApp();
    ({ plugin, app } = ui);
    const inspector = plugin.host.inspectors[0]!;
    await request(app).post("/hooks/crm").set(AUTH).send({ note: "alpha beta" }).expect(200);
    await until(() => inspector.listDeliveries({}).length === 1, "the delivery in the ledger");
  });
  afterAll(() => ui.close());

  it.each(["%00", "%00%01%1f", "%7f"])("the API: search=%s (controls only) is a 400 naming search", async (search) => {
    const res = await request(app).get(`/hooks/deliveries?search=${search}`).set(AUTH);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      ok: false,
      code: "invalid_request",
      error: "Query parameter search must be 1 to 8 words of at most 200 characters in all.",
    });
    expect(pluginErrors()).toEqual([]);
  });

  it("the API: a NUL between two words separates them, as a space does", async () => {
    const res = await request(app).get("/hooks/deliveries?search=alpha%00beta").set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body.deliveries).toHaveLength(1);
    expect(pluginErrors()).toEqual([]);
  });

  it("the dashboard: search=%00 is named on the page and left out, not a 500", async () => {
    const res = await request(app).get("/ui/deliveries?search=%00").set("Authorization", `Bearer ${OPERATOR}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="filter-problem">search must be 1 to 8 words of at most 200 characters in all.<');
    expect(res.text).toMatch(/<tr data-id="[0-9a-f-]{36}">/);
    expect(gatewayErrors()).toEqual([]);
  });
});
