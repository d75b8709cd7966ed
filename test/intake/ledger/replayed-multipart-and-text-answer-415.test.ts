/**
 * Regression (issue 20): replay parsed the stored body with `parseBody`, not the
 * accept path's `parseRequestBody`, so a replayed multipart or text/plain delivery
 * answered 415 while its live request got 200 — docs/ledger.md promises "exactly what
 * that request would get". SPEC §4.1/§11: a replay is the one accept path on the
 * stored request. Each media type's replay answers what its live request answered.
 *
 * The whole plugin (router → ledger in SQLite → replay) on the fake host.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { until } from "../../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const BOUNDARY = "----replay-boundary-7d2a";
const MULTIPART = [`--${BOUNDARY}`, 'Content-Disposition: form-data; name="subject"', "", "disk almost full", `--${BOUNDARY}--`, ""].join("\r\n");

const CASES: Array<[string, string, string]> = [
  ["JSON", "application/json", JSON.stringify({ subject: "disk almost full" })],
  ["form", "application/x-www-form-urlencoded", "subject=disk+almost+full"],
  ["multipart", `multipart/form-data; boundary=${BOUNDARY}`, MULTIPART],
  ["text/plain", "text/plain; charset=utf-8", "disk almost full"],
];

describe("a replayed multipart or text/plain delivery answered 415 (issue 20)", () => {
  let h: PluginApp;
  beforeAll(async () => {
    h = await startPluginApp({
      hooks: {
        rateLimit: { enabled: false },
        mappings: [{ id: "alerts", match: { path: "alerts" }, action: "wake", textTemplate: "alert: {{ payload.subject }}{{ payload.text }}" }],
      },
    });
  });
  afterAll(() => h.close());

  it.each(CASES)("a replayed %s delivery answers what its live request answered", async (_name, contentType, body) => {
    const listed = async () => (await request(h.app).get("/hooks/deliveries?hook=alerts").set(AUTH)).body.deliveries as Array<{ id: string; status: number }>;
    const before = (await listed()).length;
    const live = await request(h.app)
      .post("/hooks/alerts")
      .set({ ...AUTH, "Content-Type": contentType })
      .send(body);
    expect(live.status).toBe(200);
    await until(async () => (await listed()).length > before, "the live delivery in the ledger");
    const newest = (await listed())[0]!;
    const replayed = await request(h.app).post(`/hooks/deliveries/${newest.id}/replay`).set(AUTH);
    expect([replayed.status, replayed.body]).toEqual([live.status, live.body]);
    expect(h.host.systemEvents.at(-1)!.text).toContain("disk almost full");
  });
});
