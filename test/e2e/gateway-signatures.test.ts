/**
 * Signed senders on the real gateway process (issue 11 acceptance): the built-in
 * `github` preset with GitHub's example payloads signed by @octokit/webhooks,
 * a Stripe retry deduplicated by a mapping's idempotencyKey (signed by `stripe`),
 * and the dry run of the github hook. No hook token is sent to verified paths.
 */
import fs from "node:fs";
import path from "node:path";
import { Webhooks } from "@octokit/webhooks";
import Stripe from "stripe";
import { githubExample } from "../helpers/github-examples";
import { runGatewayCli, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { expectCleanResponse, hooksConfig, PLUGIN_NOT_BUILT } from "./gateway-setup";

const GH_SECRET = "e2e-github-webhook-secret";
const STRIPE_SECRET = "whsec_e2e_stripe_secret_0123456789";
const config = hooksConfig({
  hooks: {
    presets: ["github"],
    github: { secret: { env: "GITHUB_WEBHOOK_SECRET" }, deliver: false },
    mappings: [
      {
        id: "stripe",
        match: { path: "stripe" },
        messageTemplate: "Stripe {{ payload.type }}",
        idempotencyKey: "{{ payload.id }}",
        verify: { scheme: "stripe", secret: { env: "STRIPE_WEBHOOK_SECRET" } },
      },
    ],
  },
});

let gw: GatewayProcess;
beforeAll(async () => {
  if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
  gw = await startGateway({ config, env: { GITHUB_WEBHOOK_SECRET: GH_SECRET, STRIPE_WEBHOOK_SECRET: STRIPE_SECRET } });
});
afterAll(() => gw?.stop());

async function send(
  pathName: string,
  body: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; replayed: string | null }> {
  const res = await fetch(`${gw.baseUrl}/hooks/${pathName}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  const text = await res.text();
  expectCleanResponse(text, GH_SECRET);
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, replayed: res.headers.get("idempotent-replayed") };
}

let deliveries = 0;
async function github(event: string, payload: object, delivery = `e2e-${event}-${++deliveries}`) {
  const body = JSON.stringify(payload);
  return send("github", body, {
    "x-github-event": event,
    "x-github-delivery": delivery,
    "x-hub-signature-256": await new Webhooks({ secret: GH_SECRET }).sign(body),
  });
}

describe("the github preset on the real gateway", () => {
  test("ping → 200 pong, no run", async () => {
    const r = await github("ping", githubExample("ping"));
    expect([r.status, r.body]).toEqual([200, { ok: true, pong: true }]);
  });

  test("push, issues.opened, pull_request.opened and a failed workflow_run → one run each with the preset's session key", async () => {
    const push = await github(
      "push",
      githubExample("push", (p) => (p.commits as unknown[]).length > 0),
    );
    expect([push.status, push.body.sessionKey]).toEqual([202, "hook:github:Codertocat/Hello-World"]);
    const issue = githubExample("issues", (p) => p.action === "opened");
    const issueRes = await github("issues", issue);
    expect([issueRes.status, issueRes.body.sessionKey]).toEqual([
      202,
      `hook:github:${(issue.repository as { full_name: string }).full_name}#${(issue.issue as { number: number }).number}`,
    ]);
    const pr = await github(
      "pull_request",
      githubExample("pull_request", (p) => p.action === "opened"),
    );
    expect(pr.status).toBe(202);
    expect(pr.body.sessionKey).toMatch(/^hook:github:[^#]+#\d+$/);
    const completed = githubExample("workflow_run", (p) => p.action === "completed");
    const failed = await github("workflow_run", { ...completed, workflow_run: { ...(completed.workflow_run as object), conclusion: "failure" } });
    expect([failed.status, failed.body.mapping]).toEqual([202, "github"]);
  });

  test("an unlisted event → 204", async () => {
    expect((await github("star", githubExample("star"))).status).toBe(204);
  });

  test("a signed redelivery (same X-GitHub-Delivery, same bytes) → the same run id, Idempotent-Replayed: true", async () => {
    const issue = githubExample("issues", (p) => p.action === "opened");
    const first = await github("issues", issue, "e2e-redelivery-1");
    const again = await github("issues", issue, "e2e-redelivery-1");
    expect([again.status, again.replayed, again.body.runId]).toEqual([202, "true", first.body.runId]);
  });

  test("a wrong signature → 401 invalid_signature", async () => {
    const body = JSON.stringify(githubExample("ping"));
    const r = await send("github", body, { "x-github-event": "ping", "x-hub-signature-256": await new Webhooks({ secret: "wrong" }).sign(body) });
    expect([r.status, r.body.code]).toEqual([401, "invalid_signature"]);
  });
});

test("a Stripe retry (same body id, no idempotency header) is replayed via idempotencyKey", async () => {
  const body = JSON.stringify({ id: "evt_e2e_1", object: "event", type: "invoice.paid" });
  const sign = () => ({ "stripe-signature": new Stripe("sk_test_unused").webhooks.generateTestHeaderString({ payload: body, secret: STRIPE_SECRET }) });
  const first = await send("stripe", body, sign());
  expect(first.status).toBe(202);
  const retry = await send("stripe", body, sign());
  expect([retry.status, retry.replayed, retry.body.runId]).toEqual([202, "true", first.body.runId]);
});

test("gateway webhooks test github shows the mapping and the message, and that the signature is not checked", async () => {
  const payload = path.join(gw.dir, "push.json");
  fs.writeFileSync(payload, JSON.stringify(githubExample("push", (p) => (p.commits as unknown[]).length > 0)));
  // The secret's variable is unset: a dry run never reads it.
  const r = await runGatewayCli(["webhooks", "test", "github", "--payload", payload, "--header", "X-GitHub-Event: push", "--config", gw.configPath], {
    cwd: gw.dir,
    env: { GITHUB_WEBHOOK_SECRET: undefined, STRIPE_WEBHOOK_SECRET: undefined },
  });
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('Mapping:  github (hooks.presets "github" (github))');
  expect(r.stdout).toContain("Signature: github (hooks.github) — not checked in a dry run");
  expect(r.stdout).toContain("GitHub push to Codertocat/Hello-World: Codertocat pushed 1 commit to branch master.");
});
