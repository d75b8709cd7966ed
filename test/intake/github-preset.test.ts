/**
 * The built-in `github` preset through the whole plugin (SPEC §10), on GitHub's
 * example payloads signed with @octokit/webhooks: ping → pong without a run,
 * supported events → one run with the preset's session key, other events → 204
 * unless listed in hooks.github.events, redeliveries replayed by X-GitHub-Delivery,
 * and the secret read from hooks.github.secret when hooks start.
 */
import fs from "node:fs";
import path from "node:path";
import { Webhooks } from "@octokit/webhooks";
import request from "supertest";
import { GITHUB_PRESET_DESCRIPTION } from "../../src/mappings/presets/github-preset";
import { githubExample } from "../helpers/github-examples";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";

const SECRET = "gh-webhook-secret-for-tests";
let h: PluginApp;
afterEach(() => h?.close());

const start = (github: Record<string, unknown> = {}) =>
  startPluginApp({ hooks: { presets: ["github"], github: { secret: SECRET, ...github } } }).then((app) => (h = app));

async function deliver(event: string, payload: object, delivery = `d-${event}-${Math.random()}`, secret = SECRET) {
  const body = JSON.stringify(payload);
  const signature = await new Webhooks({ secret }).sign(body);
  return request(h.app)
    .post("/hooks/github")
    .set({ "Content-Type": "application/json", "X-GitHub-Event": event, "X-GitHub-Delivery": delivery, "X-Hub-Signature-256": signature })
    .send(body);
}

describe("the github preset", () => {
  test("ping → 200 {ok:true,pong:true} and no run", async () => {
    await start();
    const res = await deliver("ping", githubExample("ping"));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, pong: true });
    expect(h.host.turns).toHaveLength(0);
  });

  test("push → one run with the repository's session key and a message for the assistant", async () => {
    await start();
    const res = await deliver(
      "push",
      githubExample("push", (p) => (p.commits as unknown[]).length > 0),
    );
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, runId: expect.any(String), sessionKey: "hook:github:Codertocat/Hello-World", mapping: "github" });
    await h.host.waitFor(() => h.host.turns.length === 1, 5000, "the run");
    expect(h.host.turns[0]!.message).toContain("GitHub push to Codertocat/Hello-World: Codertocat pushed 1 commit to branch master.");
  });

  test("issues.opened and pull_request.opened follow one conversation per issue or PR", async () => {
    await start();
    const issue = await deliver(
      "issues",
      githubExample("issues", (p) => p.action === "opened"),
    );
    expect(issue.status).toBe(202);
    expect(issue.body.sessionKey).toMatch(/^hook:github:[^/]+\/[^#]+#\d+$/);
    const pr = await deliver(
      "pull_request",
      githubExample("pull_request", (p) => p.action === "opened"),
    );
    expect(pr.status).toBe(202);
    expect(pr.body.sessionKey).toMatch(/^hook:github:[^/]+\/[^#]+#\d+$/);
  });

  test.each(["toString", "constructor", "__proto__", "hasOwnProperty"])(
    "an event named like an Object.prototype member (%s) is skipped like any unhandled event (regression: toString started a run '[object Undefined]', __proto__ was 500)",
    async (event) => {
      await start();
      const res = await deliver(event, githubExample("push"));
      expect(res.status).toBe(204);
      expect(h.host.turns).toHaveLength(0);
    },
  );

  test("a message over hooks.maxRenderedBytes → 400 render_too_large and no run (regression: the preset ignored the bound)", async () => {
    h = await startPluginApp({ hooks: { presets: ["github"], github: { secret: SECRET }, maxRenderedBytes: 1024 } });
    const issue = githubExample("issues", (p) => p.action === "opened");
    (issue.issue as Record<string, unknown>).body = "A long report. ".repeat(100);
    const res = await deliver("issues", issue);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ ok: false, code: "render_too_large" });
    expect(h.host.turns).toHaveLength(0);
  });

  test("workflow_run runs only for a failed completed run", async () => {
    await start();
    const completed = githubExample("workflow_run", (p) => p.action === "completed");
    const failed = { ...completed, workflow_run: { ...(completed.workflow_run as object), conclusion: "failure" } };
    const passed = { ...completed, workflow_run: { ...(completed.workflow_run as object), conclusion: "success" } };
    expect((await deliver("workflow_run", failed)).status).toBe(202);
    expect((await deliver("workflow_run", passed)).status).toBe(204);
  });

  test("an unlisted event → 204 and no run; listed in hooks.github.events → a run", async () => {
    await start();
    expect((await deliver("star", githubExample("star"))).status).toBe(204);
    expect(h.host.turns).toHaveLength(0);
    await h.close();
    await start({ events: ["star"] });
    expect((await deliver("star", githubExample("star"))).status).toBe(202);
  });

  test("a redelivery (same X-GitHub-Delivery, same bytes) → the same run id with Idempotent-Replayed: true", async () => {
    await start();
    const payload = githubExample("issues", (p) => p.action === "opened");
    const first = await deliver("issues", payload, "72d3162e-cc78-11e3-81ab-4c9367dc0958");
    const again = await deliver("issues", payload, "72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(again.status).toBe(202);
    expect(again.headers["idempotent-replayed"]).toBe("true");
    expect(again.body.runId).toBe(first.body.runId);
  });

  test("the path is verified: the hook token alone, or another secret, is 401 invalid_signature", async () => {
    await start();
    const byToken = await request(h.app)
      .post("/hooks/github")
      .set({ Authorization: `Bearer ${TEST_TOKEN}`, "X-GitHub-Event": "ping" })
      .send({});
    expect([byToken.status, byToken.body.code]).toEqual([401, "invalid_signature"]);
    const wrong = await deliver("ping", githubExample("ping"), "d-1", "another-secret");
    expect([wrong.status, wrong.body.code]).toEqual([401, "invalid_signature"]);
  });

  test("without hooks.github.secret the activation fails naming the key; an unset variable fails the start", async () => {
    await expect(startPluginApp({ hooks: { presets: ["github"] } })).rejects.toThrow(
      'hooks.github.secret is required when hooks.presets includes "github" (hooks.presets[0])',
    );
    await expect(startPluginApp({ hooks: { presets: ["github"], github: { secret: { env: "IW_TEST_UNSET_GITHUB_SECRET" } } } })).rejects.toThrow(
      "hooks.github.secret refers to environment variable IW_TEST_UNSET_GITHUB_SECRET, which is not set or empty",
    );
  });

  test("plugin.json declares the preset with the description the code has", () => {
    const manifest = JSON.parse(fs.readFileSync(path.resolve(__dirname, "../../plugin.json"), "utf8"));
    expect(manifest.contributes.presets).toContainEqual({ name: "github", description: GITHUB_PRESET_DESCRIPTION });
  });
});
