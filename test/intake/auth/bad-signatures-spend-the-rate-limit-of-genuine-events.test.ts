/**
 * Regression (review of issue 20's request path): on a verified path the rate policy
 * counted each request before its signature was checked. Providers send from shared
 * address pools and anyone can point their own GitHub account at your URL: with the
 * default `hooks.rateLimit` (120 a minute per client), 120 events signed with someone
 * else's secret from one address spent that address's budget, and the genuine, correctly
 * signed event from it got 429 `too_many_requests` (GitHub does not retry). The auth
 * throttle already let it through (someone-elses-bad-signatures-lock-out-genuine-events);
 * the rate limit locked it out instead. SPEC §4.1 (credential → … → rate policy), §9:
 * someone else's bad signatures must not lock out your genuine events. A refused
 * signature is counted by the auth throttle only; the rate policy counts verified requests.
 *
 * The whole plugin on the fake host, default rate limit; requests signed by the real
 * @octokit/webhooks.
 */
import { Webhooks } from "@octokit/webhooks";
import request from "supertest";
import { startPluginApp, type PluginApp } from "../../helpers/plugin-app";

const GITHUB_SECRET = "ours-github-secret-0123456789";
const FOREIGN_SECRET = "someone-elses-secret-987654";
const ADDRESS = "192.30.252.7";

describe("bad signatures spend the rate limit of genuine events", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({
      extraConfig: { gateway: { trustProxy: ["loopback"] } },
      hooks: {
        mappings: [
          { id: "gh", match: { path: "gh" }, action: "agent", messageTemplate: "event {{ payload.n }}", verify: { scheme: "github", secret: GITHUB_SECRET } },
          {
            id: "limited",
            match: { path: "limited" },
            action: "agent",
            messageTemplate: "event {{ payload.n }}",
            verify: { scheme: "github", secret: GITHUB_SECRET },
            rateLimit: { max: 2, windowSeconds: 60 },
          },
        ],
      },
    });
  });
  afterEach(() => h.close());

  const github = async (path: string, secret: string, n: number) => {
    const body = JSON.stringify({ n });
    const signature = await new Webhooks({ secret }).sign(body);
    return request(h.app).post(path).set({ "X-Forwarded-For": ADDRESS, "Content-Type": "application/json", "X-Hub-Signature-256": signature }).send(body);
  };

  it("121 events signed with another secret (default hooks.rateLimit of 120) → 20×401 then 429; the genuine event from that address → 202", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) statuses.push((await github("/hooks/gh", FOREIGN_SECRET, i)).status);
    expect(statuses).toEqual([...Array(20).fill(401), ...Array(101).fill(429)]);
    const genuine = await github("/hooks/gh", GITHUB_SECRET, 999);
    expect([genuine.status, genuine.body.runId]).toEqual([202, expect.any(String)]);
  });

  it("a mapping's own rateLimit of 2 still counts genuine events: 3 bad signatures, then 2 signed → 202, the third signed → 429 too_many_requests", async () => {
    for (let i = 0; i < 3; i++) expect((await github("/hooks/limited", FOREIGN_SECRET, i)).status).toBe(401);
    const genuine = [];
    for (let i = 0; i < 3; i++) genuine.push(await github("/hooks/limited", GITHUB_SECRET, 10 + i));
    expect(genuine.map((r) => r.status)).toEqual([202, 202, 429]);
    expect([genuine[2]!.body.ok, genuine[2]!.body.code, genuine[2]!.headers["retry-after"]]).toEqual([
      false,
      "too_many_requests",
      expect.stringMatching(/^\d+$/),
    ]);
  });
});
