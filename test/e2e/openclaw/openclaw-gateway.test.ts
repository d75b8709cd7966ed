/**
 * The plugin inside the real OpenClaw gateway (SPEC §15): the packed plugin installed
 * with OpenClaw's own `openclaw plugins install npm-pack:<tgz>`, configured at
 * `plugins.entries.inbound-webhooks.config`, and driven over HTTP while
 * `openclaw gateway run` (pinned 2026.9.6, on the pinned Node 24) talks to a local
 * fake OpenAI-compatible model that records what it is sent.
 *
 * One gateway start and one restart for the whole suite (each start takes about a
 * minute on two cores, each `openclaw` command 20–40 s), so the tests run in order
 * and share it. Waits are bounded polls with generous deadlines.
 *
 * Without Node 24 and openclaw in the CI cache the suite is skipped with a notice
 * (how to run it); with CI=true a missing prerequisite fails it. When
 * OPENCLAW_E2E_MARKER names a file, each passing test appends a line to it, so
 * .ci/run can check that the suite ran.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Webhooks } from "@octokit/webhooks";
import { until } from "../../helpers/until";
import { packedTarball } from "../../helpers/packed-tarball";
import { githubExample } from "../../helpers/github-examples";
import { startFakeModel, type FakeModel } from "./fake-model";
import { findPrerequisites, freePort, getJson, OpenClawHost } from "./openclaw-host";

const HOOK_TOKEN = "e2e-inbound-hook-token-0123456789";
const BUILTIN_TOKEN = "e2e-openclaw-builtin-hook-token-0123";
const GATEWAY_TOKEN = "e2e-openclaw-gateway-token-0123456789";
const GITHUB_SECRET = "e2e-github-webhook-secret-0123456789";
/** How long OpenClaw may take for one step on a loaded two-core machine. */
const SLOW = { timeoutMs: 300_000, intervalMs: 500 };

const prereq = findPrerequisites();
const missing = "missing" in prereq ? prereq.missing : undefined;
const inCi = process.env.CI === "true";
if (missing && !inCi) process.stderr.write(`\nOpenClaw e2e suite skipped: ${missing}.\n\n`);

function passed(name: string): void {
  const marker = process.env.OPENCLAW_E2E_MARKER;
  if (marker) fs.appendFileSync(marker, `ok ${name}\n`);
}

(missing && !inCi ? describe.skip : describe)("inside the real OpenClaw gateway (openclaw 2026.9.6, Node 24)", () => {
  let host: OpenClawHost;
  let model: FakeModel;
  let dir: string;
  const unique = (what: string) => `${what}-${crypto.randomBytes(5).toString("hex")}`;
  const post = (hookPath: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${host.baseUrl}${hookPath}`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const get = (hookPath: string) => getJson(`${host.baseUrl}${hookPath}`, HOOK_TOKEN);
  const detail = () => `--- gateway output (tail) ---\n${host.log().slice(-6000)}\n--- model requests: ${model.requests.length}`;

  /** Our route serves once it answers an unauthenticated POST with our 401 (before: OpenClaw's or our 503). */
  const untilServing = () =>
    until(
      async () => {
        try {
          return (await fetch(`${host.baseUrl}/webhooks/wake`, { method: "POST", body: "{}" })).status === 401;
        } catch {
          return false;
        }
      },
      "the plugin's /webhooks route to serve inside OpenClaw",
      { ...SLOW, detail },
    );

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and a prerequisite of the OpenClaw suite is missing: ${missing}`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-openclaw-e2e-"));
    model = await startFakeModel();
    host = new OpenClawHost(prereq as { node24: string; openclaw: string }, dir, await freePort());
    host.writeConfig({
      gateway: { mode: "local", port: host.port, bind: "loopback", auth: { mode: "token", token: GATEWAY_TOKEN } },
      models: { providers: { fake: { api: "openai-completions", baseUrl: model.baseUrl, apiKey: "fake-key", models: [{ id: "fake-1", name: "Fake 1" }] } } },
      agents: { defaults: { model: { primary: "fake/fake-1" } } },
      // OpenClaw's own hooks, side by side with ours.
      hooks: { enabled: true, token: BUILTIN_TOKEN, path: "/hooks" },
    });
    const tgz = packedTarball(dir);
    const install = await host.cli(["plugins", "install", `npm-pack:${tgz}`, "--force", "--accept-capabilities"]);
    if (install.status !== 0) throw new Error(`openclaw plugins install failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
    // Installing into OpenClaw on Node 24 builds no native addon (SPEC §15): better-sqlite3 is optional there.
    if (/node-gyp|gyp info|prebuild-install/i.test(install.stdout + install.stderr))
      throw new Error(`openclaw plugins install built a native addon:\n${install.stdout}\n${install.stderr}`);
    const addons = nativeAddonsUnder(path.join(dir, "state"));
    if (addons.length > 0) throw new Error(`native addons in OpenClaw's state dir after installing the plugin: ${addons.join(", ")}`);
    const config = host.readConfig() as { plugins: { entries: Record<string, Record<string, unknown>> } };
    config.plugins.entries["inbound-webhooks"] = {
      ...config.plugins.entries["inbound-webhooks"],
      enabled: true,
      config: {
        token: HOOK_TOKEN,
        // allowQueryToken is not set: false by default inside OpenClaw. A sentence naming that key of the section
        // (query_token_not_allowed) is checked read back from the ledger.
        presets: ["github"],
        github: { secret: GITHUB_SECRET },
        mappings: [{ id: "alerts", match: { path: "alerts" }, action: "wake", textTemplate: "Alert: {{ payload.title }}" }],
      },
    };
    host.writeConfig(config);
    host.start();
    await untilServing();
  }, 900_000);

  afterAll(async () => {
    await host?.stop();
    await model?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("wake: 200, and the event is in the next heartbeat's prompt to the model", async () => {
    const text = unique("wake-event");
    const res = await post("/webhooks/wake", { text });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, mode: "now" });
    await until(() => model.chatsContaining(text).length > 0, "the heartbeat prompt carrying the wake text", { ...SLOW, detail });
    passed("wake");
  }, 400_000);

  const keyed = { key: unique("idem"), message: unique("agent-message"), runId: "" };

  it("agent: 202 → the model saw the wrapped message → run succeeded → summary on OpenClaw's main session", async () => {
    const res = await post("/webhooks/agent", { message: keyed.message, name: "E2E" }, { "idempotency-key": keyed.key });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { ok: boolean; runId: string; sessionKey: string };
    expect(body).toEqual({ ok: true, runId: expect.any(String), sessionKey: expect.stringMatching(/^hook:/) });
    keyed.runId = body.runId;
    await until(() => model.chatsContaining(keyed.message).length > 0, "the agent run's request to the model", { ...SLOW, detail });
    const sent = model.chatsContaining(keyed.message)[0]!.body;
    expect(sent).toContain("EXTERNAL_UNTRUSTED_CONTENT");
    let run: Record<string, any> = {};
    await until(async () => (run = (await get(`/webhooks/runs/${keyed.runId}`)).run ?? {}).status === "succeeded", "the run to succeed", { ...SLOW, detail });
    const firstLine = String(run.summary).split("\n")[0]!;
    expect(firstLine).toMatch(/^Hook E2E: fake reply \d+$/);
    // The summary is a system event of OpenClaw's main session: the heartbeat it requested shows it to the model.
    await until(() => model.chatsContaining(firstLine).length > 0, "the run's summary in the main session's heartbeat prompt", { ...SLOW, detail });
    passed("agent");
  }, 700_000);

  it("github preset: a push signed by @octokit/webhooks → 202; a bad signature → 401 invalid_signature", async () => {
    const payload = JSON.stringify(githubExample("push"));
    const headers = { "x-github-event": "push", "x-github-delivery": crypto.randomUUID(), authorization: "" };
    const signed = await post("/webhooks/github", payload, { ...headers, "x-hub-signature-256": await new Webhooks({ secret: GITHUB_SECRET }).sign(payload) });
    expect(signed.status).toBe(202);
    const bad = await post("/webhooks/github", payload, {
      ...headers,
      "x-github-delivery": crypto.randomUUID(),
      "x-hub-signature-256": await new Webhooks({ secret: "not-the-secret-0123456789" }).sign(payload),
    });
    expect(bad.status).toBe(401);
    expect(((await bad.json()) as { code: string }).code).toBe("invalid_signature");
    passed("github");
  });

  it("a mapped hook (wake mapping) → 200; OpenClaw's own /hooks/wake answers beside it; a channel OpenClaw does not offer → 400", async () => {
    const mapped = await post("/webhooks/alerts", { title: unique("disk") });
    expect({ status: mapped.status, body: await mapped.json() }).toEqual({ status: 200, body: { ok: true, mode: "now", mapping: "alerts" } });
    const builtin = await fetch(`${host.baseUrl}/hooks/wake`, {
      method: "POST",
      headers: { authorization: `Bearer ${BUILTIN_TOKEN}`, "content-type": "application/json" },
      body: JSON.stringify({ text: unique("builtin") }),
    });
    expect({ status: builtin.status, body: await builtin.text() }).toEqual({ status: 200, body: expect.stringContaining('"ok":true') });
    const channel = await post("/webhooks/agent", { message: "x", channel: "phone_chat" });
    expect({ status: channel.status, body: await channel.json() }).toEqual({
      status: 400,
      body: expect.objectContaining({
        ok: false,
        code: "channel_unavailable",
        details: [{ field: "channel", message: 'channel must be "last" (the gateway offers no other channels right now)' }],
      }),
    });
    passed("mapped");
  });

  it("a refusal naming a setting, answered and kept in the ledger, names the plugin's key inside OpenClaw, not OpenClaw's own hooks.*", async () => {
    const sentence = "The token must be sent in a header; ?token= is disabled (plugins.entries.inbound-webhooks.config.allowQueryToken is false).";
    const refused = await fetch(`${host.baseUrl}/webhooks/wake?token=${HOOK_TOKEN}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect({ status: refused.status, body: await refused.json() }).toEqual({
      status: 400,
      body: { ok: false, code: "query_token_not_allowed", error: sentence },
    });
    // Stored by the plugin inside OpenClaw and read back (`openclaw inbound-webhooks deliveries show` prints the same row).
    let listed: Array<{ id: string }> = [];
    await until(
      async () => (listed = (await get("/webhooks/deliveries?hook=wake&status=400&limit=1")).deliveries ?? []).length === 1,
      "the refusal in the ledger",
      { ...SLOW, detail },
    );
    const { delivery } = (await get(`/webhooks/deliveries/${listed[0]!.id}`)) as { delivery: { response?: unknown } };
    expect(delivery.response).toEqual({ ok: false, code: "query_token_not_allowed", error: sentence });
    expect(JSON.stringify(delivery)).not.toMatch(/(^|[^\w./-])hooks\./);
    passed("key-names");
  });

  it("a keyed retry after an OpenClaw restart answers the same run id and starts no second run (one model call)", async () => {
    expect(keyed.runId).not.toBe("");
    await host.stop();
    host.start();
    await untilServing();
    const retry = await post("/webhooks/agent", { message: keyed.message, name: "E2E" }, { "idempotency-key": keyed.key });
    expect(retry.status).toBe(202);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(((await retry.json()) as { runId: string }).runId).toBe(keyed.runId);
    const runs = (await get("/webhooks/runs?limit=100")).runs as Array<{ id: string; summary?: string }>;
    expect(runs.filter((r) => r.id === keyed.runId)).toHaveLength(1);
    expect(model.chatsContaining(keyed.message)).toHaveLength(1);
    passed("restart");
  }, 700_000);

  it("the ledger lists the delivery and a replay starts a new run", async () => {
    const { deliveries } = (await get("/webhooks/deliveries?hook=agent&limit=100")) as { deliveries: Array<{ id: string; runIds: string[] }> };
    const original = deliveries.find((d) => d.runIds.includes(keyed.runId));
    expect(original).toBeDefined();
    const replay = await post(`/webhooks/deliveries/${original!.id}/replay`, "");
    expect(replay.status).toBe(202);
    const replayed = (await replay.json()) as { runId?: string; body?: { runId?: string } };
    const newRunId = replayed.runId ?? replayed.body?.runId;
    expect(newRunId).toEqual(expect.any(String));
    expect(newRunId).not.toBe(keyed.runId);
    await until(async () => (await get(`/webhooks/runs/${newRunId}`)).run?.status === "succeeded", "the replayed run to succeed", { ...SLOW, detail });
    passed("replay");
  }, 400_000);

  it("`openclaw inbound-webhooks deliveries list` lists the ledger", async () => {
    const listed = await host.cli(["inbound-webhooks", "deliveries", "list"]);
    expect({ status: listed.status, stderr: listed.stderr.slice(-2000) }).toEqual({ status: 0, stderr: expect.any(String) });
    expect(listed.stdout).toContain("agent");
    expect(listed.stdout).toContain("github");
    passed("cli");
  }, 300_000);
});

/** Compiled Node addons (`*.node`) anywhere below `root`. */
function nativeAddonsUnder(root: string): string[] {
  return fs
    .readdirSync(root, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(".node"));
}
