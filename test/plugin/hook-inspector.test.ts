/**
 * The HookInspector the plugin registers (host API 1.3), driven through the real
 * plugin on the fake host: deliveries, runs (linked to their delivery), replay,
 * mappings, dry run, summary and the live feed of new rows.
 */
import request from "supertest";
import type { DeliverySummary, HookInspector, RunSummary } from "../../src/core/inspection";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [
    { id: "crm", match: { path: "crm" }, action: "agent", name: "CRM", messageTemplate: "Deal {{ payload.deal }}" },
    {
      id: "signed",
      match: { path: "signed", headers: { "x-kind": "a" } },
      action: "wake",
      textTemplate: "signed",
      verify: { scheme: "token-header", header: "x-my-check", secret: "s".repeat(24) },
    },
    { id: "all", action: "wake", textTemplate: "any" },
    { id: "never", match: { path: "later" }, action: "wake", textTemplate: "never" },
  ],
};

describe("the plugin's HookInspector", () => {
  let plugin: PluginApp;
  let inspector: HookInspector;

  beforeEach(async () => {
    plugin = await startPluginApp({ hooks: HOOKS });
    expect(plugin.host.inspectors).toHaveLength(1);
    inspector = plugin.host.inspectors[0]!;
  });
  afterEach(() => plugin.close());

  it("lists and shows deliveries, links runs to them, feeds new rows to subscribers and sums them up", async () => {
    const fed: DeliverySummary[] = [];
    const off = inspector.subscribe((d) => fed.push(d));
    const res = await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "8" }).expect(202);
    await until(() => fed.length === 1, "the new row on the feed");
    off();
    expect(fed[0]).toMatchObject({ hook: "crm", status: 202, runIds: [res.body.runId] });
    const [listed] = inspector.listDeliveries({ hook: "crm" });
    expect(listed!.id).toBe(fed[0]!.id);
    expect(inspector.getDelivery(listed!.id)).toMatchObject({ body: '{"deal":"8"}', headers: { authorization: "[REDACTED]" } });
    expect(inspector.getDelivery("nope")).toBeUndefined();
    await plugin.host.waitFor(() => plugin.host.turns.length === 1, 5000, "the run");
    await until(() => inspector.getRun(res.body.runId)?.status === "succeeded", "the run to succeed");
    expect(inspector.listRuns({})[0]).toMatchObject({ id: res.body.runId, name: "CRM", deliveryId: listed!.id });
    expect(inspector.summary()).toMatchObject({ queued: 0, running: 0, failedLastHour: 0, ledgerEntries: 1, lastDeliveryAt: listed!.receivedAt });
    expect(() => inspector.listDeliveries({ status: "4x" })).toThrow("Query parameter status must be an HTTP status (404) or a class (4xx).");
  });

  it("subscribeRuns tells each start and finish of a run, read back from the store; none after unsubscribing", async () => {
    const seen: RunSummary[] = [];
    const off = inspector.subscribeRuns!((r) => seen.push(r));
    const res = await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "10" }).expect(202);
    await until(() => seen.some((r) => r.status === "succeeded"), "the finished run on the feed");
    // The fake host's turn is instant, so the run may finish before the ledger records its request: deliveryId is then absent.
    expect(seen.map((r) => [r.id, r.status])).toEqual([
      [res.body.runId, "running"],
      [res.body.runId, "succeeded"],
    ]);
    expect(seen[1]!.finishedAt).toBeDefined();
    off();
    await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "11" }).expect(202);
    await plugin.host.waitFor(() => plugin.host.turns.length === 2, 5000, "the second run");
    await until(() => inspector.listRuns({ status: "succeeded" }).length === 2, "the second run to succeed");
    expect(seen).toHaveLength(2);
  });

  it("replays a delivery into a new run, and answers undefined for an unknown id", async () => {
    await request(plugin.app).post("/hooks/crm").set(AUTH).send({ deal: "9" }).expect(202);
    await until(() => inspector.listDeliveries({}).length === 1, "the row");
    const [original] = inspector.listDeliveries({});
    const r = await inspector.replay(original!.id);
    expect(r).toMatchObject({ status: 202, body: { ok: true, mapping: "crm" } });
    await plugin.host.waitFor(() => plugin.host.turns.length === 2, 5000, "the replayed run");
    await until(() => inspector.listDeliveries({}).length === 2, "the replay's row");
    expect(inspector.listDeliveries({ limit: 1 })[0]).toMatchObject({ id: r!.deliveryId, replayOf: original!.id, client: "inspector" });
    expect(await inspector.replay("00000000-0000-4000-8000-000000000000")).toBeUndefined();
  });

  it("describes the mappings in order with origin, rules, verify scheme and the mapping that shadows one", () => {
    expect(inspector.mappings()).toEqual([
      { id: "crm", origin: "config", match: ["path crm"], action: "agent" },
      { id: "signed", origin: "config", match: ["path signed", "header x-kind=a"], action: "wake", verify: "token-header" },
      { id: "all", origin: "config", match: ["any request"], action: "wake" },
      { id: "never", origin: "config", match: ["path later"], action: "wake", shadowedBy: "all" },
    ]);
  });

  it("dry-runs a request: the mapping and the action, or why it would fail", async () => {
    const ok = await inspector.dryRun({ hook: "crm", body: '{"deal":"3"}', headers: { "Content-Type": "application/json" } });
    expect(ok).toMatchObject({ ok: true, mappingId: "crm", action: { kind: "agent", message: "Deal 3" } });
    expect(ok.lines[0]).toBe("Hook:     crm");
    const bad = await inspector.dryRun({ hook: "crm", body: "not json", headers: {} });
    expect(bad.ok).toBe(false);
    expect(bad.lines[0]).toContain("not valid JSON");
  });

  it("a configured verify header of any name is redacted in the ledger", async () => {
    await request(plugin.app)
      .post("/hooks/signed")
      .set({ "X-My-Check": "s".repeat(24), "X-Kind": "a" })
      .send({})
      .expect(200);
    await until(() => inspector.listDeliveries({}).length === 1, "the row");
    const d = inspector.getDelivery(inspector.listDeliveries({})[0]!.id)!;
    expect(d.headers["x-my-check"]).toBe("[REDACTED]");
    expect(JSON.stringify(d)).not.toContain("s".repeat(24));
  });
});
