/**
 * Regression: the dashboard dry-runs a stored delivery (its page shows what the request would get
 * today) through the plugin's HookInspector with the delivery's hook, body and headers, but not
 * its query: a mapping whose template reads `{{ query.env }}` rendered `env ` in the dry run while
 * the live request (and its replay, and `gateway webhooks test --delivery`) rendered `env prod`.
 * The inspector takes the delivery's URL and reads its query as a live request's is read.
 *
 * The real plugin on the fake host: a live request, its row in the SQLite ledger, then the
 * dry run the delivery page asks for (src/inspector/ui-pages.ts).
 */
import request from "supertest";
import type { HookInspector } from "../../src/core/inspection";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("the dashboard's dry run of a stored delivery", () => {
  let plugin: PluginApp;
  let inspector: HookInspector;
  beforeEach(async () => {
    plugin = await startPluginApp({
      hooks: { rateLimit: { enabled: false }, mappings: [{ id: "deploy", match: { path: "deploy" }, action: "wake", textTemplate: "env {{ query.env }}" }] },
    });
    inspector = plugin.host.inspectors[0]!;
  });
  afterEach(() => plugin.close());

  it("renders the delivery's query as the live request did", async () => {
    await request(plugin.app).post("/hooks/deploy?env=prod").set(AUTH).send({}).expect(200);
    expect(plugin.host.systemEvents.at(-1)!.text).toContain("env prod");
    await until(() => inspector.listDeliveries({ hook: "deploy" }).length === 1, "the delivery in the ledger");
    const delivery = inspector.getDelivery(inspector.listDeliveries({ hook: "deploy" })[0]!.id)!;
    expect(delivery.url).toBe("/hooks/deploy?env=prod");

    const dry = await inspector.dryRun({ hook: delivery.hook!, body: delivery.body!, headers: delivery.headers, url: delivery.url });
    expect([dry.ok, dry.action?.text]).toEqual([true, "env prod"]);
  });
});
