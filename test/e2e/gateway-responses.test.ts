/**
 * Response modes, fan-out, handshakes and body types (SPEC §12) on the real
 * gateway process with the built plugin: `Prefer: wait` on `/agent`, a mapping's
 * own `response`, `forEach` with idempotent retries, the Slack and Meta
 * handshakes, multipart and text/plain bodies. One builder per request kind; each
 * negative case changes one thing of a valid request.
 *
 * The echo runner takes RUNNER_DELAY_MS per turn, so `Prefer: wait=1` cannot see
 * the run end while `wait=20` (and the clamped `wait=25`) always can.
 * Requires the built dist (`npm run build`).
 */
import { until } from "../helpers/until";
import { signHeaders } from "../helpers/signers";
import { startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { queryPluginDb } from "../crash/crash-support";
import { expectCleanResponse, HOOK_TOKEN, hooksConfig, PLUGIN_NOT_BUILT } from "./gateway-setup";

jest.setTimeout(90_000);

const RUNNER_DELAY_MS = 2_000;
const MAX_WAIT_SECONDS = 25;
const SLACK_SECRET = "e2e-slack-signing-secret-0123456789";
const META_TOKEN = "e2e-meta-verify-token-42";
/** Meta signs its event POSTs (X-Hub-Signature-256): the path verifies them, as docs/responses.md recommends. */
const META_APP_SECRET = "e2e-meta-app-secret-0123456789";

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined for a non-JSON answer). */
  body: Record<string, unknown> | undefined;
}

async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  expectCleanResponse(text, SLACK_SECRET);
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json") && text !== "";
  return { status: res.status, headers: res.headers, text, body: json ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const auth = { authorization: `Bearer ${HOOK_TOKEN}` };

describe("e2e: response modes, fan-out, handshakes and body types", () => {
  let gw: GatewayProcess;
  const url = (sub: string) => `${gw.baseUrl}/hooks/${sub}`;

  /** POST /hooks/agent, optionally with a Prefer header. */
  const agentRequest = async (message: string, prefer?: string) =>
    answer(
      await fetch(url("agent"), {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", ...(prefer ? { prefer } : {}) },
        body: JSON.stringify({ message, name: "Waiter" }),
      }),
    );
  /** POST JSON to a mapped hook, optionally with an Idempotency-Key. */
  const mappedJson = async (sub: string, body: unknown, key?: string) =>
    answer(
      await fetch(url(sub), {
        method: "POST",
        headers: { ...auth, "content-type": "application/json", ...(key ? { "idempotency-key": key } : {}) },
        body: JSON.stringify(body),
      }),
    );
  /** POST multipart/form-data (fields, then an optional file part) to a mapped hook, waiting for the run. */
  const multipartRequest = async (fields: Array<[string, string]>, file?: { name: string; filename: string }) => {
    const form = new FormData();
    for (const [k, v] of fields) form.append(k, v);
    if (file) form.append(file.name, new Blob(["%PDF-1.4"], { type: "application/pdf" }), file.filename);
    return answer(await fetch(url("form"), { method: "POST", headers: { ...auth, prefer: "wait=20" }, body: form }));
  };
  /** POST text/plain to a mapped hook, waiting for the run. */
  const textRequest = async (text: string) =>
    answer(await fetch(url("form"), { method: "POST", headers: { ...auth, "content-type": "text/plain; charset=utf-8", prefer: "wait=20" }, body: text }));
  /** A Slack url_verification POST, signed with `secret` (no hook token: the signature authenticates). */
  const slackChallenge = async (challenge: string, secret = SLACK_SECRET) => {
    const body = JSON.stringify({ type: "url_verification", challenge, token: "legacy" });
    return answer(
      await fetch(url("slack"), { method: "POST", headers: { ...(await signHeaders("slack", secret, body)), "content-type": "application/json" }, body }),
    );
  };
  /** Meta's verification GET (no hook token). */
  const metaGet = async (params: Record<string, string>) => answer(await fetch(`${url("whatsapp")}?${new URLSearchParams(params).toString()}`));
  const metaParams = { "hub.mode": "subscribe", "hub.verify_token": META_TOKEN, "hub.challenge": "1158201444" };

  const runsWithKeyPrefix = (prefix: string) =>
    queryPluginDb<{ id: string; idempotency_key: string }>(
      gw.stateDir,
      "SELECT id, idempotency_key FROM runs WHERE idempotency_key LIKE ? ORDER BY seq",
      `%${prefix}%`,
    );
  const runStatus = async (id: string) => {
    const res = await answer(await fetch(url(`runs/${id}`), { headers: auth }));
    expect(res.status).toBe(200);
    return (res.body!.run as { status: string }).status;
  };

  beforeAll(async () => {
    if (PLUGIN_NOT_BUILT) throw new Error("dist/ is not built: run `npm run build` first");
    gw = await startGateway({
      startTimeoutMs: 60_000,
      config: hooksConfig({
        hooks: {
          rateLimit: { enabled: false },
          runs: { maxWaitSeconds: MAX_WAIT_SECONDS, maxConcurrent: 4 },
          mappings: [
            {
              id: "fwd",
              match: { path: "forward" },
              messageTemplate: "mail {{ payload.id }}",
              response: { status: 200, body: { received: "{{ payload.id }}" } },
            },
            {
              id: "batch",
              match: { path: "batch" },
              forEach: "events",
              messageTemplate: "batch event {{ index }}: {{ item.text }}",
              sessionKey: "hook:batch:{{ item.id }}",
            },
            {
              id: "slack",
              match: { path: "slack" },
              handshake: "slack",
              verify: { scheme: "slack", secret: SLACK_SECRET },
              messageTemplate: "slack {{ payload.event.text }}",
            },
            {
              id: "meta",
              match: { path: "whatsapp" },
              handshake: { meta: { verifyToken: META_TOKEN } },
              verify: { scheme: "github", secret: META_APP_SECRET },
              messageTemplate: "wa {{ payload.entry }}",
            },
            { id: "form", match: { path: "form" }, messageTemplate: "form subject={{ payload.subject }} tags={{ payload.tag }} text={{ payload.text }}" },
          ],
        },
        agents: { runner: { kind: "echo", delayMs: RUNNER_DELAY_MS }, defaults: { heartbeat: { every: "off" } } },
      }),
    });
  });
  afterAll(async () => {
    await gw?.stop();
  });

  it("Prefer: wait=20 on /agent → 200 with the echo runner's reply and Preference-Applied: wait=20", async () => {
    const res = await agentRequest("inline please", "wait=20");
    expect([res.status, res.headers.get("preference-applied"), res.body!.ok, res.body!.status]).toEqual([200, "wait=20", true, "succeeded"]);
    expect(String(res.body!.reply)).toMatch(/^echo: /);
    expect(String(res.body!.reply)).toContain("inline please");
    expect(await runStatus(String(res.body!.runId))).toBe("succeeded");
  });

  it("Prefer: wait=1 on a run slower than a second → 202 with Preference-Applied: wait=1, and the run then completes", async () => {
    const res = await agentRequest("take your time", "wait=1");
    expect([res.status, res.headers.get("preference-applied")]).toEqual([202, "wait=1"]);
    expect(Object.keys(res.body!).sort()).toEqual(["ok", "runId", "sessionKey"]);
    const id = String(res.body!.runId);
    await until(async () => (await runStatus(id)) === "succeeded", `run ${id} to succeed`, { timeoutMs: 30_000, intervalMs: 200 });
  });

  it("a wait over hooks.runs.maxWaitSeconds is clamped: Preference-Applied names the applied value", async () => {
    const res = await agentRequest("clamped", "wait=600");
    expect([res.status, res.headers.get("preference-applied"), res.body!.status]).toEqual([200, `wait=${MAX_WAIT_SECONDS}`, "succeeded"]);
  });

  it("a mapping's response answers 200 with the rendered body; the same Idempotency-Key replays it", async () => {
    const first = await mappedJson("forward", { id: "evt_77" }, "fwd-1");
    expect([first.status, first.body]).toEqual([200, { received: "evt_77" }]);
    const again = await mappedJson("forward", { id: "evt_77" }, "fwd-1");
    expect([again.status, again.headers.get("idempotent-replayed"), again.body]).toEqual([200, "true", { received: "evt_77" }]);
  });

  it("forEach over three items starts three runs; the same Idempotency-Key again returns the same runs and starts nothing", async () => {
    const body = {
      events: [
        { id: "a", text: "one" },
        { id: "b", text: "two" },
        { id: "c", text: "three" },
      ],
    };
    const first = await mappedJson("batch", body, "batch-e2e-1");
    expect(first.status).toBe(202);
    const runs = first.body!.runs as Array<{ index: number; runId: string; sessionKey: string }>;
    expect(runs.map((r) => [r.index, r.sessionKey])).toEqual([
      [0, "hook:batch:a"],
      [1, "hook:batch:b"],
      [2, "hook:batch:c"],
    ]);
    expect(runsWithKeyPrefix("batch-e2e-1").map((r) => r.id)).toEqual(runs.map((r) => r.runId));
    await until(async () => (await Promise.all(runs.map((r) => runStatus(r.runId)))).every((s) => s === "succeeded"), "the three batch runs to succeed", {
      timeoutMs: 30_000,
      intervalMs: 200,
    });

    const again = await mappedJson("batch", body, "batch-e2e-1");
    expect([again.status, again.headers.get("idempotent-replayed"), again.body!.runs]).toEqual([202, "true", runs]);
    expect(runsWithKeyPrefix("batch-e2e-1")).toHaveLength(3);
    const turns = gw.journal().filter((e) => e.type === "agent_turn" && String(e.reply).includes("batch event "));
    expect(turns).toHaveLength(3);
  });

  it("forEach over 101 items (hooks.maxFanOut 100) → 400 fan_out_too_large; nothing stored", async () => {
    const res = await mappedJson("batch", { events: Array.from({ length: 101 }, (_, i) => ({ id: String(i), text: "x" })) }, "batch-e2e-big");
    expect([res.status, res.body!.code]).toEqual([400, "fan_out_too_large"]);
    expect(runsWithKeyPrefix("batch-e2e-big")).toHaveLength(0);
  });

  it("a signed Slack url_verification → 200 { challenge }, and no run", async () => {
    const before = queryPluginDb<{ n: number }>(gw.stateDir, "SELECT COUNT(*) AS n FROM runs")[0]!.n;
    const res = await slackChallenge("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
    expect([res.status, res.body]).toEqual([200, { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" }]);
    expect(queryPluginDb<{ n: number }>(gw.stateDir, "SELECT COUNT(*) AS n FROM runs")[0]!.n).toBe(before);
  });

  it("a Slack url_verification signed with another secret → 401 invalid_signature", async () => {
    const res = await slackChallenge("c", "not-the-slack-signing-secret-000");
    expect([res.status, res.body!.code]).toEqual([401, "invalid_signature"]);
  });

  it("Meta's verification GET with the right token → 200 text/plain with the challenge (on a path that verifies the POSTs' signatures)", async () => {
    const res = await metaGet(metaParams);
    expect([res.status, res.headers.get("content-type"), res.text]).toEqual([200, "text/plain; charset=utf-8", "1158201444"]);
  });

  it("Meta's verification GET with a wrong token → 403 forbidden", async () => {
    const res = await metaGet({ ...metaParams, "hub.verify_token": "wrong-token" });
    expect([res.status, res.body!.code]).toEqual([403, "forbidden"]);
  });

  it("multipart fields (a repeated name as a list) render in the mapping's template", async () => {
    const res = await multipartRequest([
      ["subject", "Hello"],
      ["tag", "a"],
      ["tag", "b"],
    ]);
    expect([res.status, res.body!.status]).toEqual([200, "succeeded"]);
    expect(String(res.body!.reply)).toContain('form subject=Hello tags=["a","b"] text=');
  });

  it("a text/plain body renders as payload.text", async () => {
    const res = await textRequest("plain words here");
    expect([res.status, res.body!.status]).toEqual([200, "succeeded"]);
    expect(String(res.body!.reply)).toContain("form subject= tags= text=plain words here");
  });

  it("a multipart file part → 415 unsupported_media_type naming the part", async () => {
    const res = await multipartRequest([["subject", "Hello"]], { name: "invoice", filename: "invoice.pdf" });
    expect([res.status, res.body!.code, res.body!.error]).toEqual([
      415,
      "unsupported_media_type",
      "The multipart part invoice is a file; mapped hooks accept form fields only.",
    ]);
  });
});
