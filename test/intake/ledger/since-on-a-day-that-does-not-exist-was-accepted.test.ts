/**
 * Regression: `GET /hooks/deliveries?since=2026-02-30T00:00:00Z` answered 200 — the
 * runtime's Date.parse takes 30 February as 2 March — so a mistyped date silently
 * listed from another day. A day that does not exist is now the 400 naming `since`,
 * like any other time that is not ISO-8601.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("since on a day that does not exist", () => {
  let plugin: PluginApp;
  beforeAll(async () => {
    plugin = await startPluginApp({ hooks: { rateLimit: { enabled: false } } });
  });
  afterAll(() => plugin.close());

  it.each(["2026-02-30T00:00:00Z", "2026-02-29T12:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2026-01-00T00:00:00Z"])(
    "%s: 400 naming since",
    async (since) => {
      const res = await request(plugin.app)
        .get(`/hooks/deliveries?since=${encodeURIComponent(since)}`)
        .set(AUTH);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        ok: false,
        code: "invalid_request",
        error: "Query parameter since must be an ISO-8601 time such as 2026-01-31T12:00:00Z.",
      });
    },
  );

  it.each(["2028-02-29T00:00:00Z", "2026-01-31T23:59:59+05:30", "2026-12-31T00:00:00.123Z"])("%s (a real day): 200", async (since) => {
    const res = await request(plugin.app)
      .get(`/hooks/deliveries?since=${encodeURIComponent(since)}`)
      .set(AUTH);
    expect(res.status).toBe(200);
  });
});
