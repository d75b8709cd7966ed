/**
 * Regression (review of issue 20's request path): a request target in absolute form may
 * carry a userinfo (`POST http://alice:<password>@host/hooks/alerts HTTP/1.1`, as a
 * misconfigured client or proxy sends a URL with credentials in it). Express routes it by
 * its path; the one redaction rule hid credential-named query parameters and Bearer/Basic
 * values but not a URL's userinfo, so the password was kept verbatim in the ledger row's
 * URL (and so in the ledger API, the CLI and the dashboard) and in the "hook request
 * rejected" log line. SPEC §9: credentials never appear in the logs or the ledger.
 *
 * The whole plugin (router → ledger in SQLite, logs through the plugin's logger) on the
 * fake host, served on a real port.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";
import { postRequestTarget, serve, type Served } from "./support/raw-http";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const PASSWORD = "hunter2-correct-horse";

/** A POST whose request line is `http://alice:<PASSWORD>@127.0.0.1:<port><path>`; resolves with the status. */
const postWithUserinfo = async (port: number, path: string, headers: Record<string, string>): Promise<number> =>
  (
    await postRequestTarget(
      port,
      `http://alice:${PASSWORD}@127.0.0.1:${port}${path}`,
      { ...headers, "Content-Type": "application/json" },
      JSON.stringify({ subject: "disk almost full" }),
    )
  ).status;

describe("a password in a proxy-form URL reaches the ledger and the log", () => {
  let h: PluginApp;
  let served: Served;
  beforeEach(async () => {
    h = await startPluginApp({
      hooks: {
        rateLimit: { enabled: false },
        mappings: [{ id: "alerts", match: { path: "alerts" }, action: "wake", textTemplate: "alert: {{ payload.subject }}" }],
      },
    });
    served = await serve(h.app);
  });
  afterEach(async () => {
    await served.close();
    await h.close();
  });

  const deliveries = async () =>
    (await request(h.app).get("/hooks/deliveries?hook=alerts").set(AUTH)).body.deliveries as Array<{ id: string; url: string; status: number }>;

  it("refused without a token (401): neither the ledger's URL nor the log line holds the password", async () => {
    expect(await postWithUserinfo(served.port, "/hooks/alerts", {})).toBe(401);
    await until(async () => (await deliveries()).length === 1, "the refused delivery in the ledger");
    const [row] = await deliveries();
    expect(row!.url).toBe(`http://[REDACTED]@127.0.0.1:${served.port}/hooks/alerts`);
    const rejected = h.host.logs.filter((l) => l.message === "hook request rejected");
    expect(rejected).toHaveLength(1);
    expect(JSON.stringify(h.host.logs)).not.toContain(PASSWORD);
  });

  it("accepted (200): the stored delivery, its detail and the replay's row hold no password", async () => {
    expect(await postWithUserinfo(served.port, "/hooks/alerts?source=proxy", AUTH)).toBe(200);
    await until(async () => (await deliveries()).length === 1, "the delivery in the ledger");
    const [row] = await deliveries();
    const detail = await request(h.app).get(`/hooks/deliveries/${row!.id}`).set(AUTH);
    expect(detail.body.delivery.url).toBe(`http://[REDACTED]@127.0.0.1:${served.port}/hooks/alerts?source=proxy`);
    expect((await request(h.app).post(`/hooks/deliveries/${row!.id}/replay`).set(AUTH)).status).toBe(200);
    await until(async () => (await deliveries()).length === 2, "the replay's delivery in the ledger");
    const all = await request(h.app).get("/hooks/deliveries").set(AUTH);
    expect(JSON.stringify(all.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(h.host.logs)).not.toContain(PASSWORD);
  });
});
