/**
 * The mapping examples of docs/responses.md (its ```json blocks), as written, in one
 * config: the real gateway's dry run (`gateway webhooks test`) accepts them all, and
 * the forward-email, crm-batch and Slack examples answer what the doc says they answer.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, REPO_ROOT, runGatewayCli } from "../helpers/gateway-process";
import { HOOK_TOKEN } from "./gateway-setup";

jest.setTimeout(60_000);

const DOC = fs.readFileSync(path.join(REPO_ROOT, "docs", "responses.md"), "utf8");
const MAPPINGS = [...DOC.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => JSON.parse(m[1]!) as { id: string });
const ENV = { SLACK_SIGNING_SECRET: "docs-slack-signing-secret-0123456789", META_VERIFY_TOKEN: "docs-meta-verify-token-42" };

function setup(): { config: string; dir: string } {
  const dir = makeGatewayDir();
  const config = path.join(dir, "gateway.config.json");
  fs.writeFileSync(
    config,
    JSON.stringify({ hooks: { enabled: true, token: HOOK_TOKEN, mappings: MAPPINGS }, agents: { defaults: { heartbeat: { every: "off" } } } }),
  );
  return { config, dir };
}

async function dryRun(name: string, payload: unknown): Promise<Record<string, unknown>> {
  const { config, dir } = setup();
  fs.writeFileSync(path.join(dir, "body.json"), JSON.stringify(payload));
  const r = await runGatewayCli(["webhooks", "test", name, "--payload", path.join(dir, "body.json"), "--json", "--config", config], { env: ENV });
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

describe("docs/responses.md: the mapping examples, as written", () => {
  it("the doc holds the four examples (forward-email, crm-batch, slack, whatsapp)", () => {
    expect(MAPPINGS.map((m) => m.id)).toEqual(["forward-email", "crm-batch", "slack", "whatsapp"]);
  });

  it("forward-email answers its own response: 200 {received: <payload.id>}", async () => {
    const r = await dryRun("forward-email", { from: "a@example.com", subject: "Hi", id: "evt_1" });
    expect(r).toMatchObject({ outcome: "action", response: { status: 200, body: { received: "evt_1" } } });
  });

  it("crm-batch starts one run per element, each with its item's session key, answered 202", async () => {
    const r = await dryRun("crm", {
      batchId: "b1",
      events: [
        { type: "signup", customer: "c1" },
        { type: "churn", customer: "c2" },
      ],
    });
    expect(r).toMatchObject({
      outcome: "batch",
      response: {
        status: 202,
        body: {
          ok: true,
          runs: [
            { index: 0, sessionKey: "hook:crm:c1" },
            { index: 1, sessionKey: "hook:crm:c2" },
          ],
          events: 0,
          mapping: "crm-batch",
        },
      },
    });
  });

  it("slack answers a url_verification with its challenge and starts no run", async () => {
    const r = await dryRun("slack", { type: "url_verification", challenge: "ch-1" });
    expect(r).toMatchObject({ outcome: "handshake", response: { status: 200, body: { challenge: "ch-1" } } });
  });
});
