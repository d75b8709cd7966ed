/**
 * Regression (issue 22 item 9): a `Prefer: wait` sender that gave up (closed the
 * connection while waiting) left an accepted, executed run with no ledger row and
 * no metric — the request was reported "aborted" and its answer never written, so
 * neither the ledger (written when the answer finishes) nor the request counter
 * saw it. Now it is recorded as what it was: 202 (the run was stored), marked
 * `client_went_away`, linked to its run, and counted in the metrics.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { createPrometheusMetrics } from "../../../src/host-contract/prometheus-metrics";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { parseScrape, sample } from "../../helpers/prometheus-scrape";
import { until } from "../../helpers/until";

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };

let h: PluginApp;
let server: http.Server;
afterEach(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await h.close();
});

describe("a Prefer: wait sender that gives up", () => {
  it("left an accepted, executed run with no ledger row and no metric: now a 202 row marked client_went_away, linked to the run, and counted", async () => {
    let finishRun!: () => void;
    const registry = createPrometheusMetrics({ logger: quiet });
    h = await startPluginApp({
      hooks: { rateLimit: { enabled: false } },
      metrics: registry.forPlugin("inbound-webhooks"),
      runTurn: () => new Promise((resolve) => (finishRun = () => resolve({ status: "ok", reply: "done late" }))),
    });
    server = http.createServer(h.app);
    // Resolves when the server side of the sender's connection has closed (the gateway saw it go).
    const serverSawClose = new Promise<void>((resolve) => server.once("connection", (socket) => socket.once("close", () => resolve())));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as AddressInfo;

    // The sender asks to wait, the run starts, then the sender hangs up before it ends.
    const body = JSON.stringify({ message: "long job" });
    const sender = http.request({
      host: "127.0.0.1",
      port,
      path: "/hooks/agent",
      method: "POST",
      headers: { ...bearer, "content-type": "application/json", "content-length": Buffer.byteLength(body), prefer: "wait=30" },
    });
    sender.on("error", () => undefined);
    sender.end(body);
    await h.host.waitFor(() => h.host.turns.length === 1);
    sender.destroy();
    await serverSawClose;
    finishRun();

    const deliveries = async () =>
      (await request(h.app).get("/hooks/deliveries?hook=agent").set(bearer)).body.deliveries as Array<{ status: number; code?: string; runIds: string[] }>;
    await until(async () => (await deliveries()).length === 1, "the abandoned request's ledger row");
    const [row] = await deliveries();
    expect([row!.status, row!.code, row!.runIds.length]).toEqual([202, "client_went_away", 1]);
    const run = await request(h.app).get(`/hooks/runs/${row!.runIds[0]}`).set(bearer);
    await until(async () => (await request(h.app).get(`/hooks/runs/${row!.runIds[0]}`).set(bearer)).body.run.status === "succeeded", "the run to finish");
    expect(run.status).toBe(200);
    const scrape = parseScrape(await registry.render());
    expect(sample(scrape, "inbound_webhooks_requests_total", { hook: "agent", status: "202" })).toBe(1);
  });
});
