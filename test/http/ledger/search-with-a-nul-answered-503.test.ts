/**
 * Regression: a NUL in `search` (`/hooks/deliveries?search=%00`, `search=a%00b`)
 * answered 503 `storage_unavailable` with an error-level "could not be read" log
 * line, and the dashboard's `/ui/deliveries?search=%00` answered 500: FTS5 reads a
 * NUL as the end of the query, so the quoted word never closed. Control characters
 * now separate words, as in the index (the host contract's searchWords): a search of
 * nothing but controls is the usual 400 naming `search`, and `a%00b` is `a b`.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { until } from "../../helpers/until";
import { createGatewayApp, type GatewayApp } from "../../../src/gateway/http/create-app";
import { createDashboard, type Dashboard } from "../../../src/gateway/ui/ui-router";
import type { HostLogger } from "../../../src/host-contract/host-api";

const OPERATOR = "operator-token-0123456789abcdef";
const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("a search with a NUL or another control character", () => {
  let plugin: PluginApp;
  let dashboard: Dashboard;
  let app: GatewayApp;
  const gatewayErrors: string[] = [];
  const logger: HostLogger = { debug() {}, info() {}, warn() {}, error: (msg) => void gatewayErrors.push(msg) };
  const pluginErrors = () => plugin.host.logs.filter((l) => l.level === "error").map((l) => l.message);

  beforeAll(async () => {
    plugin = await startPluginApp({ hooks: { rateLimit: { enabled: false }, mappings: [{ id: "crm", match: { path: "crm" }, action: "wake", textTemplate: "deal" }] } });
    const inspector = plugin.host.inspectors[0]!;
    dashboard = createDashboard({ authToken: OPERATOR, inspectors: [{ pluginId: "inbound-webhooks", inspector }], logger });
    app = createGatewayApp({ routes: plugin.host.routes.map((r) => ({ ...r, pluginId: "inbound-webhooks" })), logger, status: () => ({}), ui: dashboard.router, authToken: OPERATOR });
    await request(app).post("/hooks/crm").set(AUTH).send({ note: "alpha beta" }).expect(200);
    await until(() => inspector.listDeliveries({}).length === 1, "the delivery in the ledger");
  });
  afterAll(async () => {
    dashboard.close();
    await plugin.close();
  });

  it.each(["%00", "%00%01%1f", "%7f"])("the API: search=%s (controls only) is a 400 naming search", async (search) => {
    const res = await request(app).get(`/hooks/deliveries?search=${search}`).set(AUTH);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, code: "invalid_request", error: "Query parameter search must be 1 to 8 words of at most 200 characters in all." });
    expect(pluginErrors()).toEqual([]);
  });

  it("the API: a NUL between two words separates them, as a space does", async () => {
    const res = await request(app).get("/hooks/deliveries?search=alpha%00bet").set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body.deliveries).toHaveLength(1);
    expect(pluginErrors()).toEqual([]);
  });

  it("the dashboard: search=%00 is named on the page and left out, not a 500", async () => {
    const res = await request(app).get("/ui/deliveries?search=%00").set("Authorization", `Bearer ${OPERATOR}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('id="filter-problem">search must be 1 to 8 words of at most 200 characters in all.<');
    expect(res.text).toMatch(/<tr data-id="[0-9a-f-]{36}">/);
    expect(gatewayErrors).toEqual([]);
  });
});
