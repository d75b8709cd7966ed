/**
 * The event of a mapped request (SPEC §6.1 `event`) through the whole plugin: the
 * verify scheme's default for GitHub (signed with @octokit/webhooks, GitHub's own
 * example payloads), Stripe (signed with stripe) and Slack; a mapping's `event`
 * template wins over the default; a mapping without verify or template names none.
 * The event is rendered by the accept path into the Outcome and stored on the row.
 */
import request from "supertest";
import { githubExample } from "../helpers/github-examples";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { signHeaders } from "../helpers/signers";
import { tempDir } from "../helpers/temp-dir";
import { until } from "../helpers/until";

const GH = "a-github-secret-0123456789";
const ST = "whsec_stripe_secret_0123456789abcdef";
const SL = "slack-signing-secret-0123456789";
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [
    { id: "gh", match: { path: "github" }, messageTemplate: "GitHub {{ headers.x-github-event }}", verify: { scheme: "github", secret: GH } },
    { id: "stripe", match: { path: "stripe" }, messageTemplate: "Stripe {{ payload.type }}", verify: { scheme: "stripe", secret: ST } },
    { id: "slack", match: { path: "slack" }, messageTemplate: "Slack", verify: { scheme: "slack", secret: SL } },
    { id: "crm", match: { path: "crm" }, messageTemplate: "CRM", event: "deal.{{ payload.stage }}" },
    { id: "plain", match: { path: "plain" }, messageTemplate: "plain" },
  ],
};

describe("the event of a mapped request", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  beforeAll(async () => {
    tmp = tempDir();
    plugin = await startPluginApp({ stateDir: tmp.dir, hooks: HOOKS });
  });
  afterAll(async () => {
    await plugin.close();
    tmp.remove();
  });
  /** POSTs and resolves with the event on the request's ledger row. */
  async function eventOf(path: string, body: string, headers: Record<string, string>): Promise<string | undefined> {
    const res = await request(plugin.app)
      .post(`/hooks/${path}`)
      .set({ "content-type": "application/json", ...headers })
      .send(body);
    expect(res.status).toBe(202);
    const rows = async () =>
      (
        await request(plugin.app)
          .get(`/hooks/deliveries?hook=${path}&limit=1`)
          .set({ Authorization: `Bearer ${TEST_TOKEN}` })
      ).body.deliveries as Array<{ runIds: string[]; event?: string }>;
    await until(async () => (await rows())[0]?.runIds[0] === res.body.runId, `the ${path} row`);
    return (await rows())[0]!.event;
  }

  it("github: X-GitHub-Event plus the body's action (pull_request.opened), or the event alone (push)", async () => {
    const pr = JSON.stringify(githubExample("pull_request", (p) => p.action === "opened"));
    expect(await eventOf("github", pr, { "X-GitHub-Event": "pull_request", ...(await signHeaders("github", GH, pr)) })).toBe("pull_request.opened");
    const push = JSON.stringify(githubExample("push"));
    expect(await eventOf("github", push, { "X-GitHub-Event": "push", ...(await signHeaders("github", GH, push)) })).toBe("push");
  });

  it("stripe: the body's type; slack: event.type of an Events API body", async () => {
    const invoice = JSON.stringify({ id: "evt_1", object: "event", type: "invoice.paid", data: { object: { id: "in_1" } } });
    expect(await eventOf("stripe", invoice, await signHeaders("stripe", ST, invoice))).toBe("invoice.paid");
    const mention = JSON.stringify({ type: "event_callback", event: { type: "app_mention", text: "hi" } });
    expect(await eventOf("slack", mention, await signHeaders("slack", SL, mention))).toBe("app_mention");
  });

  it("a mapping's event template wins; a mapping with neither template nor verify names no event", async () => {
    const auth = { Authorization: `Bearer ${TEST_TOKEN}` };
    expect(await eventOf("crm", JSON.stringify({ stage: "won" }), auth)).toBe("deal.won");
    expect(await eventOf("plain", "{}", auth)).toBeUndefined();
  });
});

describe("the event of a preset's request", () => {
  it("the github preset names X-GitHub-Event plus the action; the mail preset names mail", async () => {
    const tmp = tempDir();
    const app = await startPluginApp({ stateDir: tmp.dir, hooks: { rateLimit: { enabled: false }, presets: ["github", "mail"], github: { secret: GH } } });
    try {
      const pr = JSON.stringify(githubExample("pull_request", (p) => p.action === "opened"));
      const gh = await request(app.app)
        .post("/hooks/github")
        .set({ "content-type": "application/json", "X-GitHub-Event": "pull_request", ...(await signHeaders("github", GH, pr)) })
        .send(pr);
      expect(gh.status).toBe(202);
      const mail = await request(app.app)
        .post("/hooks/mail")
        .set({ Authorization: `Bearer ${TEST_TOKEN}` })
        .send({ source: "mail", messages: [{ from: "a@example.com", subject: "Hi", snippet: "Hello" }] });
      expect(mail.status).toBe(202);
      const rows = async () =>
        (
          await request(app.app)
            .get("/hooks/deliveries")
            .set({ Authorization: `Bearer ${TEST_TOKEN}` })
        ).body.deliveries as Array<{ hook: string; event?: string }>;
      await until(async () => (await rows()).length === 2, "both rows");
      expect((await rows()).map((d) => [d.hook, d.event])).toEqual([
        ["mail", "mail"],
        ["github", "pull_request.opened"],
      ]);
    } finally {
      await app.close();
      tmp.remove();
    }
  });
});
