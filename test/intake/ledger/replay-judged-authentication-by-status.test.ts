/**
 * Regression: replay decided whether a delivery had been authenticated by its status
 * (401 or 429) instead of the row's `refused` flag (the outcome's own "the credential
 * had not passed"). So
 * - a GitHub push with a valid signature that the path's rate limit answered 429 —
 *   authenticated, its body kept, and never sent again by GitHub — answered 409
 *   `delivery_not_replayable` "refused before it was authenticated", and could not be
 *   replayed at all;
 * - a request refused before its token was compared (a 405) answered 409
 *   `delivery_body_not_stored`, blaming `hooks.ledger.storeBodies`.
 *
 * The whole plugin (router → ledger in SQLite → replay) on the fake host.
 */
import request from "supertest";
import { sign } from "@octokit/webhooks-methods";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";
import { until } from "../../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const SECRET = "github-webhook-secret-0123456789";

interface Listed {
  id: string;
  status: number;
  code?: string;
  refused?: boolean;
}

describe("replay judges authentication by the row's refused flag, not by its status", () => {
  let plugin: PluginApp;
  beforeAll(async () => {
    plugin = await startPluginApp({
      hooks: {
        rateLimit: { enabled: false },
        mappings: [
          {
            id: "gh",
            match: { path: "gh" },
            action: "wake",
            textTemplate: "push {{ payload.ref }}",
            verify: { scheme: "github", secret: SECRET },
            rateLimit: { max: 1, windowSeconds: 3600 },
          },
          { id: "crm", match: { path: "crm" }, action: "wake", textTemplate: "deal {{ payload.deal }}" },
        ],
      },
    });
  });
  afterAll(() => plugin.close());

  const rows = async (query: string): Promise<Listed[]> =>
    (await request(plugin.app).get(`/hooks/deliveries?${query}`).set(AUTH).expect(200)).body.deliveries as Listed[];
  const signedPush = async (ref: string) => {
    const body = JSON.stringify({ ref });
    return request(plugin.app)
      .post("/hooks/gh")
      .set({ "Content-Type": "application/json", "X-Hub-Signature-256": await sign(SECRET, body) })
      .send(body);
  };

  it("a correctly signed delivery that the rate limit answered 429 is replayed like any authenticated one", async () => {
    expect((await signedPush("refs/heads/first")).status).toBe(200);
    expect((await signedPush("refs/heads/second")).status).toBe(429);
    await until(async () => (await rows("hook=gh")).length === 2, "both pushes in the ledger");
    const [limited] = await rows("hook=gh&status=429");
    expect(limited).toMatchObject({ status: 429, code: "too_many_requests" });
    expect(limited!.refused).toBeUndefined();

    const res = await request(plugin.app).post(`/hooks/deliveries/${limited!.id}/replay`).set(AUTH);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "now", mapping: "gh" });
    expect(plugin.host.systemEvents.map((e) => e.text).join("\n")).toContain("push refs/heads/second");
  });

  it("a request refused before its token was compared (405) is 409 delivery_not_replayable, not delivery_body_not_stored", async () => {
    await request(plugin.app).get("/hooks/crm").expect(405);
    await until(async () => (await rows("hook=crm&status=405")).length === 1, "the 405 in the ledger");
    const [refused] = await rows("hook=crm&status=405");
    expect(refused!.refused).toBe(true);

    const res = await request(plugin.app).post(`/hooks/deliveries/${refused!.id}/replay`).set(AUTH);
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      ok: false,
      code: "delivery_not_replayable",
      error:
        "This delivery was refused before it was authenticated (method_not_allowed), so it cannot be replayed: send it again with valid credentials instead.",
    });
  });
});
