/**
 * NO_LEDGER (src/intake/ledger/ledger-routes.ts): what a host without a delivery ledger
 * passes, visibly, as the pipeline's `ledger`. The ledger routes answer as its comment
 * says: the lists empty, a delivery and its replay 404, a bulk replay 503; a delivery
 * is still accepted (nothing is recorded).
 */
import request from "supertest";
import { bearer, createRouterApp, type RouterApp } from "../../helpers/router-app";

const ID = "019a7c3e-5f1b-7c2d-9e4f-0123456789ab";

describe("the ledger routes of a host that passes NO_LEDGER", () => {
  let h: RouterApp;
  beforeEach(() => (h = createRouterApp()));
  afterEach(() => h.close());

  it("lists no runs and no deliveries (200)", async () => {
    const runs = await request(h.app).get("/hooks/runs").set(bearer());
    expect([runs.status, runs.body]).toEqual([200, { ok: true, runs: [] }]);
    const deliveries = await request(h.app).get("/hooks/deliveries").set(bearer());
    expect([deliveries.status, deliveries.body]).toEqual([200, { ok: true, deliveries: [] }]);
  });

  it("answers a delivery and its replay 404 delivery_not_found, a bulk replay 503 storage_unavailable", async () => {
    const one = await request(h.app).get(`/hooks/deliveries/${ID}`).set(bearer());
    expect([one.status, one.body.code]).toEqual([404, "delivery_not_found"]);
    const replay = await request(h.app).post(`/hooks/deliveries/${ID}/replay`).set(bearer());
    expect([replay.status, replay.body.code]).toEqual([404, "delivery_not_found"]);
    const bulk = await request(h.app).post("/hooks/deliveries/replay?hook=wake").set(bearer());
    expect([bulk.status, bulk.body.code]).toEqual([503, "storage_unavailable"]);
  });

  it("still accepts a delivery", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "hello" });
    expect([res.status, res.body.ok]).toEqual([200, true]);
  });
});
