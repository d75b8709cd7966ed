/**
 * Response modes, fan-out, handshakes and body types (SPEC §12) through the real
 * plugin on the real HTTP stack (supertest → express → the plugin's route).
 */
import request from "supertest";
import { signHeaders } from "../../helpers/signers";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../../helpers/plugin-app";

const bearer = { Authorization: `Bearer ${TEST_TOKEN}` };
const SLACK_SECRET = "slack-signing-secret-0123456789";
const META_TOKEN = "meta-verify-token-42";

describe("mapped hooks: response, forEach, handshakes, body types", () => {
  let h: PluginApp;
  beforeEach(async () => {
    h = await startPluginApp({
      hooks: {
        maxFanOut: 5,
        mappings: [
          {
            id: "fwd",
            match: { path: "forward" },
            messageTemplate: "mail {{ payload.id }}",
            response: { status: 200, body: { received: "{{ payload.id }}", run: "{{ runId }}" } },
          },
          {
            id: "batch",
            match: { path: "batch" },
            forEach: "events",
            messageTemplate: "event {{ index }}: {{ item.text }} of {{ payload.sender }}",
            sessionKey: "hook:batch:{{ item.id }}",
          },
          {
            id: "slack",
            match: { path: "slack" },
            handshake: "slack",
            verify: { scheme: "slack", secret: SLACK_SECRET },
            messageTemplate: "slack {{ payload.event.text }}",
          },
          { id: "meta", match: { path: "whatsapp" }, handshake: { meta: { verifyToken: META_TOKEN } }, messageTemplate: "wa {{ payload.entry }}" },
          { id: "form", match: { path: "form" }, messageTemplate: "form {{ payload.subject }} / {{ payload.tag }} / {{ payload.text }}" },
        ],
      },
    });
  });
  afterEach(() => h.close());

  it("a mapping's response answers 200 with the rendered body, and a replay with the same Idempotency-Key returns the same body", async () => {
    const first = await request(h.app).post("/hooks/forward").set(bearer).set("Idempotency-Key", "k-1").send({ id: "evt_9" });
    expect(first.status).toBe(200);
    expect(first.body.received).toBe("evt_9");
    expect(first.body.run).toMatch(/^[0-9a-f-]{36}$/);
    const again = await request(h.app).post("/hooks/forward").set(bearer).set("Idempotency-Key", "k-1").send({ id: "evt_9" });
    expect([again.status, again.headers["idempotent-replayed"], again.body]).toEqual([200, "true", first.body]);
    await h.host.waitFor(() => h.host.turns.length === 1);
    expect(h.host.turns).toHaveLength(1);
  });

  it("forEach over three items starts three runs listed in the answer; the same key again returns the same runs and starts nothing", async () => {
    const body = {
      sender: "crm",
      events: [
        { id: "a", text: "one" },
        { id: "b", text: "two" },
        { id: "c", text: "three" },
      ],
    };
    const first = await request(h.app).post("/hooks/batch").set(bearer).set("Idempotency-Key", "batch-1").send(body);
    expect(first.status).toBe(202);
    expect(first.body.runs.map((r: { index: number; sessionKey: string }) => [r.index, r.sessionKey])).toEqual([
      [0, "hook:batch:a"],
      [1, "hook:batch:b"],
      [2, "hook:batch:c"],
    ]);
    await h.host.waitFor(() => h.host.turns.length === 3);
    expect(h.host.turns.map((t) => t.message).join("\n")).toMatch(/event 0: one of crm[\s\S]*event 1: two of crm[\s\S]*event 2: three of crm/);
    const again = await request(h.app).post("/hooks/batch").set(bearer).set("Idempotency-Key", "batch-1").send(body);
    expect([again.status, again.headers["idempotent-replayed"], again.body.runs]).toEqual([202, "true", first.body.runs]);
    const statuses = await Promise.all(first.body.runs.map((r: { runId: string }) => request(h.app).get(`/hooks/runs/${r.runId}`).set(bearer)));
    expect(statuses.map((s) => s.status)).toEqual([200, 200, 200]);
    expect(h.host.turns).toHaveLength(3);
  });

  it("forEach over more items than hooks.maxFanOut → 400 fan_out_too_large naming the limit and the count; nothing starts", async () => {
    const res = await request(h.app)
      .post("/hooks/batch")
      .set(bearer)
      .send({ events: Array.from({ length: 6 }, (_, i) => ({ id: String(i), text: "x" })) });
    expect([res.status, res.body.code, res.body.error]).toEqual([
      400,
      "fan_out_too_large",
      "The payload has 6 items at payload.events; at most 5 are accepted per request (hooks.maxFanOut).",
    ]);
    expect(h.host.turns).toHaveLength(0);
  });

  it("forEach on a payload without an array at the path → 400 invalid_payload naming the path", async () => {
    const res = await request(h.app).post("/hooks/batch").set(bearer).send({ events: "nope" });
    expect([res.status, res.body.code, res.body.error]).toEqual([
      400,
      "invalid_payload",
      "forEach of mapping batch needs an array at payload.events, but the payload has a string there.",
    ]);
  });

  it("a signed Slack url_verification is answered with its challenge and starts no run", async () => {
    const body = JSON.stringify({ type: "url_verification", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", token: "legacy" });
    const res = await request(h.app)
      .post("/hooks/slack")
      .set(await signHeaders("slack", SLACK_SECRET, body))
      .set("Content-Type", "application/json")
      .send(body);
    expect([res.status, res.body]).toEqual([200, { challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" }]);
    expect(h.host.turns).toHaveLength(0);
  });

  it("an unsigned Slack url_verification is refused 401 invalid_signature", async () => {
    const res = await request(h.app).post("/hooks/slack").set("Content-Type", "application/json").send({ type: "url_verification", challenge: "c" });
    expect([res.status, res.body.code]).toEqual([401, "invalid_signature"]);
  });

  it("Meta's verification GET with the right verify token → 200 text/plain with the challenge, no hook token needed", async () => {
    const res = await request(h.app).get("/hooks/whatsapp").query({ "hub.mode": "subscribe", "hub.verify_token": META_TOKEN, "hub.challenge": "1158201444" });
    expect([res.status, res.headers["content-type"], res.text]).toEqual([200, "text/plain; charset=utf-8", "1158201444"]);
  });

  it("Meta's verification GET with a wrong verify token → 403 forbidden", async () => {
    const res = await request(h.app).get("/hooks/whatsapp").query({ "hub.mode": "subscribe", "hub.verify_token": "wrong", "hub.challenge": "1158201444" });
    expect([res.status, res.body]).toEqual([
      403,
      { ok: false, code: "forbidden", error: "The verification request was refused: hub.verify_token does not match." },
    ]);
  });

  it("a GET on a mapped hook without a Meta handshake stays 405", async () => {
    const res = await request(h.app).get("/hooks/form").set(bearer).query({ "hub.mode": "subscribe", "hub.verify_token": META_TOKEN, "hub.challenge": "1" });
    expect([res.status, res.body.code, res.headers.allow]).toEqual([405, "method_not_allowed", "POST"]);
  });

  it("multipart/form-data fields (a repeated name as a list) and a text/plain body render in templates", async () => {
    const form = await request(h.app).post("/hooks/form").set(bearer).field("subject", "Hello").field("tag", "a").field("tag", "b");
    expect(form.status).toBe(202);
    const text = await request(h.app).post("/hooks/form").set(bearer).set("Content-Type", "text/plain").send("plain words");
    expect(text.status).toBe(202);
    await h.host.waitFor(() => h.host.turns.length === 2);
    const messages = h.host.turns.map((t) => t.message).join("\n");
    expect(messages).toContain('form Hello / ["a","b"] /');
    expect(messages).toContain("form  /  / plain words");
  });

  it("a multipart file part → 415 unsupported_media_type naming the part", async () => {
    const res = await request(h.app).post("/hooks/form").set(bearer).field("subject", "x").attach("invoice", Buffer.from("%PDF-1.4"), "invoice.pdf");
    expect([res.status, res.body.code, res.body.error]).toEqual([
      415,
      "unsupported_media_type",
      "The multipart part invoice is a file; mapped hooks accept form fields only.",
    ]);
    expect(h.host.turns).toHaveLength(0);
  });
});

describe("Prefer: wait on agent hooks", () => {
  let h: PluginApp;
  afterEach(() => h.close());

  it("a run that ends in time → 200 with the runner's reply and Preference-Applied", async () => {
    h = await startPluginApp({ hooks: {} });
    const res = await request(h.app).post("/hooks/agent").set(bearer).set("Prefer", "wait=20").send({ message: "ping" });
    expect([res.status, res.headers["preference-applied"], res.body.ok, res.body.status]).toEqual([200, "wait=20", true, "succeeded"]);
    expect(res.body.reply).toContain("echo: ");
    expect(res.body.runId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a value over hooks.runs.maxWaitSeconds is clamped and Preference-Applied says so", async () => {
    h = await startPluginApp({ hooks: { runs: { maxWaitSeconds: 3 } } });
    const res = await request(h.app).post("/hooks/agent").set(bearer).set("Prefer", "respond-async, wait=600").send({ message: "ping" });
    expect([res.status, res.headers["preference-applied"]]).toEqual([200, "wait=3"]);
  });

  it("a malformed wait preference is ignored: the usual 202 without Preference-Applied", async () => {
    h = await startPluginApp({ hooks: {} });
    const res = await request(h.app).post("/hooks/agent").set(bearer).set("Prefer", "wait=soon").send({ message: "ping" });
    expect([res.status, res.headers["preference-applied"]]).toEqual([202, undefined]);
  });

  it("a run still going when the wait ends → 202 with Preference-Applied, and the run completes afterwards", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    h = await startPluginApp({ hooks: {}, runTurn: async () => (await gate, { status: "ok", reply: "late" }) });
    const res = await request(h.app).post("/hooks/agent").set(bearer).set("Prefer", "wait=1").send({ message: "slow" });
    expect([res.status, res.headers["preference-applied"]]).toEqual([202, "wait=1"]);
    release();
    await h.host.waitFor(() => h.host.systemEvents.some((e) => e.text.includes("late")), 5000, "the run summary");
  });
});
