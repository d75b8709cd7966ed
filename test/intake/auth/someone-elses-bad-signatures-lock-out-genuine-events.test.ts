/**
 * Regression (issue 22 item 2): providers send from shared address pools and anyone
 * can point their own GitHub/Stripe account at your URL. 25 events signed with
 * another secret from one address got 20×401 then 429, and the genuine, correctly
 * signed events from that address got 429 too for as long as the flood went on
 * (GitHub does not retry). SPEC §4.1, §9: a correctly signed request on a verified
 * path passes while its address is throttled, without clearing the count.
 *
 * The whole plugin on the fake host; requests signed by the real @octokit/webhooks
 * and stripe libraries.
 */
import { Webhooks } from "@octokit/webhooks";
import Stripe from "stripe";
import request from "supertest";
import { startPluginApp, type PluginApp } from "../../helpers/plugin-app";

const GITHUB_SECRET = "ours-github-secret-0123456789";
const STRIPE_SECRET = "whsec_ours0123456789abcdefghijkl";
const ADDRESS = "192.30.252.7";

describe("someone else's bad signatures lock out genuine events (issue 22 item 2)", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({
      extraConfig: { gateway: { trustProxy: ["loopback"] } },
      hooks: {
        rateLimit: { enabled: false },
        mappings: [
          { id: "gh", match: { path: "gh" }, action: "agent", messageTemplate: "event {{ payload.n }}", verify: { scheme: "github", secret: GITHUB_SECRET } },
          {
            id: "stripe",
            match: { path: "stripe" },
            action: "agent",
            messageTemplate: "event {{ payload.n }}",
            verify: { scheme: "stripe", secret: STRIPE_SECRET },
          },
        ],
      },
    });
  });
  afterEach(() => h.close());

  const github = async (secret: string, n: number) => {
    const body = JSON.stringify({ n });
    const signature = await new Webhooks({ secret }).sign(body);
    return request(h.app)
      .post("/hooks/gh")
      .set({ "X-Forwarded-For": ADDRESS, "Content-Type": "application/json", "X-Hub-Signature-256": signature })
      .send(body);
  };
  const stripe = (secret: string, n: number) => {
    const body = JSON.stringify({ n });
    const header = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
    return request(h.app).post("/hooks/stripe").set({ "X-Forwarded-For": ADDRESS, "Content-Type": "application/json", "Stripe-Signature": header }).send(body);
  };

  it("25 GitHub events signed with another secret → 20×401 then 429; a correctly signed event from that address is accepted", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await github("someone-elses-secret-987654", i)).status);
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(5).fill(429)]);
    const genuine = await github(GITHUB_SECRET, 99);
    expect(genuine.status).toBe(202);
    expect(genuine.body.runId).toEqual(expect.any(String));
  });

  it("the genuine event does not clear the count: the flood's next bad signature is still 429", async () => {
    for (let i = 0; i < 21; i++) await github("someone-elses-secret-987654", i);
    expect((await github(GITHUB_SECRET, 99)).status).toBe(202);
    const next = await github("someone-elses-secret-987654", 100);
    expect([next.status, next.body.code]).toEqual([429, "too_many_requests"]);
  });

  it("the same for Stripe: a flood signed with another whsec_ secret does not lock out the genuine event", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await stripe("whsec_someoneelse0123456789abcd", i)).status);
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(5).fill(429)]);
    expect((await stripe(STRIPE_SECRET, 99)).status).toBe(202);
  });
});
