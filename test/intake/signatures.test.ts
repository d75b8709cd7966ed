/**
 * Sender verification through the whole plugin (SPEC §10, issue 11): for each
 * scheme a request signed with the sender's real library is accepted without a
 * hook token; missing, wrong, tampered or stale signatures get 401 with
 * `invalid_signature` / `signature_expired`, nothing is dispatched and nothing of
 * the secret or the signature reaches the log. Each negative case changes one thing.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { signHeaders, stripeHeaderForSecrets, type SignScheme } from "../helpers/signers";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";

const SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SW_OTHER = "whsec_dGhpcyBpcyBhIHNlY29uZCBzZWNyZXQgb2YgMzI=";
const PLAIN = "shpss_0123456789abcdef0123456789abcdef";
const PLAIN_OTHER = "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";

interface Case {
  verify: Record<string, unknown>;
  secret: string;
  other: string;
  sigHeader: string;
  timestamped: boolean;
}
const CASES: Record<SignScheme, Case> = {
  github: {
    verify: { scheme: "github" },
    secret: "It's a Secret to Everybody",
    other: "another secret, not GitHub's",
    sigHeader: "X-Hub-Signature-256",
    timestamped: false,
  },
  "standard-webhooks": { verify: { scheme: "standard-webhooks" }, secret: SW_SECRET, other: SW_OTHER, sigHeader: "webhook-signature", timestamped: true },
  svix: { verify: { scheme: "standard-webhooks" }, secret: SW_SECRET, other: SW_OTHER, sigHeader: "svix-signature", timestamped: true },
  stripe: {
    verify: { scheme: "stripe" },
    secret: "whsec_test_secret_for_stripe_0123456789",
    other: "whsec_other_secret_for_stripe_9876543210",
    sigHeader: "Stripe-Signature",
    timestamped: true,
  },
  slack: { verify: { scheme: "slack" }, secret: PLAIN, other: PLAIN_OTHER, sigHeader: "X-Slack-Signature", timestamped: true },
  shopify: { verify: { scheme: "shopify" }, secret: PLAIN, other: PLAIN_OTHER, sigHeader: "X-Shopify-Hmac-Sha256", timestamped: false },
  "hmac-sha256": {
    verify: { scheme: "hmac-sha256", header: "x-signature", prefix: "sha256=" },
    secret: PLAIN,
    other: PLAIN_OTHER,
    sigHeader: "X-Signature",
    timestamped: false,
  },
  "token-header": {
    verify: { scheme: "token-header", header: "x-gitlab-token" },
    secret: PLAIN,
    other: PLAIN_OTHER,
    sigHeader: "X-Gitlab-Token",
    timestamped: false,
  },
};
const SCHEMES = Object.keys(CASES) as SignScheme[];
const BODY = '{"id":"evt_1","action":"opened","text":"caf\u00e9 \u2713"}';

let h: PluginApp;
const accepted: string[] = [];

async function start(secrets: (c: Case) => unknown = (c) => c.secret): Promise<void> {
  const mappings = SCHEMES.map((s) => ({
    id: s,
    match: { path: `in/${s}` },
    messageTemplate: "{{ payload.action }} [{{ headers.x-gitlab-token }}{{ headers.x-hub-signature-256 }}]",
    verify: { ...CASES[s].verify, secret: secrets(CASES[s]) },
  }));
  h = await startPluginApp({ hooks: { mappings } });
  accepted.length = 0;
  h.activation.events.on("request:accepted", (e) => accepted.push(e.hook));
}
afterEach(() => h?.close());

const post = (scheme: SignScheme, headers: Record<string, string>, body = BODY) =>
  request(h.app).post(`/hooks/in/${scheme}`).set("Content-Type", "application/json").set(headers).send(body);
const logText = () => JSON.stringify(h.host.logs);

describe.each(SCHEMES)("%s", (scheme) => {
  const c = CASES[scheme];
  beforeEach(() => start());

  test("a request signed by the sender's library is accepted without a hook token", async () => {
    const res = await post(scheme, await signHeaders(scheme, c.secret, BODY));
    expect(res.status).toBe(202);
    expect(res.body).toEqual(expect.objectContaining({ ok: true, mapping: scheme }));
    expect(accepted).toEqual([`in/${scheme}`]);
  });

  test("a missing signature is 401 invalid_signature, even with a valid hook token", async () => {
    const res = await post(scheme, { Authorization: `Bearer ${TEST_TOKEN}` });
    expect([res.status, res.body.code]).toEqual([401, "invalid_signature"]);
    expect(res.body.error).toMatch(/^The request signature was refused: .+ is missing\.$/);
    expect(accepted).toEqual([]);
  });

  test("a signature made with another secret is 401 invalid_signature, naming the header, never an expected value", async () => {
    const res = await post(scheme, await signHeaders(scheme, c.other, BODY));
    expect([res.status, res.body.code]).toEqual([401, "invalid_signature"]);
    expect(res.body.error.toLowerCase()).toContain(c.sigHeader.toLowerCase());
    const good = Object.values(await signHeaders(scheme, c.secret, BODY, Math.floor(Date.now() / 1000)));
    for (const v of good) expect(res.body.error).not.toContain(v.replace(/^(sha256=|v0=|t=\d+,v1=|v1,)/, "").slice(0, 16));
    expect(accepted).toEqual([]);
  });

  test("tampered bytes fail: the same JSON re-serialised", async () => {
    const headers = await signHeaders(scheme, c.secret, BODY);
    const reserialised = JSON.stringify(JSON.parse(BODY), null, 1);
    const res = await post(scheme, headers, reserialised);
    if (scheme === "token-header") {
      // A static token does not cover the body: re-serialising cannot be detected (docs/signatures.md says so).
      expect(res.status).toBe(202);
      return;
    }
    expect([res.status, res.body.code]).toEqual([401, "invalid_signature"]);
    expect(accepted).toEqual([]);
  });

  test("nothing of the secret or the signature is logged", async () => {
    const headers = await signHeaders(scheme, c.secret, BODY);
    await post(scheme, headers);
    await post(scheme, await signHeaders(scheme, c.other, BODY));
    const log = logText();
    expect(log).not.toContain(c.secret);
    for (const v of Object.values(headers)) if (v.length > 20) expect(log).not.toContain(v);
  });

  if (c.timestamped) {
    test("a stale or future timestamp is 401 signature_expired", async () => {
      const now = Math.floor(Date.now() / 1000);
      const stale = await post(scheme, await signHeaders(scheme, c.secret, BODY, now - 301 - 5));
      expect([stale.status, stale.body.code]).toEqual([401, "signature_expired"]);
      expect(stale.body.error).toMatch(/s old; signatures older than 300 s are refused\.$/);
      const future = await post(scheme, await signHeaders(scheme, c.secret, BODY, now + 400));
      expect([future.status, future.body.code]).toEqual([401, "signature_expired"]);
      expect(accepted).toEqual([]);
    });
  }
});

describe("rotation", () => {
  test.each(SCHEMES)("%s: with two secrets both verify; after removing the old one only the new verifies", async (scheme) => {
    const c = CASES[scheme];
    await start((k) => [k.other, k.secret]);
    expect((await post(scheme, await signHeaders(scheme, c.secret, BODY))).status).toBe(202);
    expect((await post(scheme, await signHeaders(scheme, c.other, BODY, undefined, "msg_b"))).status).toBe(202);
    await h.close();
    await start((k) => [k.secret]);
    expect((await post(scheme, await signHeaders(scheme, c.secret, BODY))).status).toBe(202);
    const old = await post(scheme, await signHeaders(scheme, c.other, BODY, undefined, "msg_c"));
    expect([old.status, old.body.code]).toEqual([401, "invalid_signature"]);
  });
});

describe("on a verified path", () => {
  beforeEach(() => start());

  test("Stripe's multi-signature header passes when any v1 matches", async () => {
    const ts = Math.floor(Date.now() / 1000);
    const res = await post("stripe", { "Stripe-Signature": stripeHeaderForSecrets(BODY, ["whsec_unrelated", CASES.stripe.secret], ts) });
    expect(res.status).toBe(202);
  });

  test("a form-encoded body is verified over its raw bytes too", async () => {
    const form = "payload=%7B%22action%22%3A%22clicked%22%7D";
    const res = await request(h.app)
      .post("/hooks/in/slack")
      .set("Content-Type", "application/x-www-form-urlencoded")
      .set(await signHeaders("slack", PLAIN, form))
      .send(form);
    expect(res.status).toBe(202);
  });

  test("signature headers stay invisible to templates", async () => {
    await post("token-header", await signHeaders("token-header", PLAIN, BODY));
    await post("github", await signHeaders("github", CASES.github.secret, BODY));
    await h.host.waitFor(() => h.host.turns.length >= 2, 5000, "two runs");
    for (const t of h.host.turns) {
      expect(t.message).toContain("opened []");
      expect(t.message).not.toContain(PLAIN);
    }
  });

  test("each refused signature counts as an authentication failure: the 21st is 429; a correctly signed request from the throttled address passes (SPEC §9)", async () => {
    const wrong = await signHeaders("github", "wrong", BODY);
    for (let i = 0; i < 20; i++) expect((await post("github", wrong)).status).toBe(401);
    const over = await post("github", wrong);
    expect([over.status, over.body.code]).toEqual([429, "too_many_requests"]);
    expect(over.headers["retry-after"]).toBeDefined();
    const res = await post("github", await signHeaders("github", CASES.github.secret, BODY));
    expect(res.status).toBe(202);
    // It did not clear the count: the next bad signature is still over the limit.
    expect((await post("github", wrong)).status).toBe(429);
  });

  test("paths without verify keep the hook token exactly as today", async () => {
    await h.close();
    h = await startPluginApp({
      hooks: {
        mappings: [
          { id: "plain", match: { path: "plain" }, messageTemplate: "x" },
          { id: "gh", match: { path: "gh" }, messageTemplate: "x", verify: { scheme: "github", secret: "s3cret-s3cret-s3cret" } },
        ],
      },
    });
    const none = await request(h.app).post("/hooks/plain").send({});
    expect([none.status, none.body.code]).toEqual([401, "unauthorized"]);
    expect((await request(h.app).post("/hooks/plain").set("Authorization", `Bearer ${TEST_TOKEN}`).send({})).status).toBe(202);
    expect(
      (
        await request(h.app)
          .post("/hooks/agent")
          .set(await signHeaders("github", "s3cret", "{}"))
          .send("{}")
      ).status,
    ).toBe(401);
  });
});

describe("sender retries with the recipes of docs/signatures.md", () => {
  // Slack and Shopify send no idempotency header the gateway knows: their recipes key on the signed
  // body's event_id (Slack) and X-Shopify-Webhook-Id (Shopify). Regression: the recipes had no
  // idempotencyKey, so each retry of a delivery (new timestamp, or the same bytes) started another run.
  /** The mapping of a recipe, as docs/signatures.md writes it, with `secret` in place of its variable. */
  const recipe = (heading: string, secret: string): Record<string, unknown> => {
    const doc = readFileSync(join(__dirname, "../../docs/signatures.md"), "utf8");
    const json = /```json\n([\s\S]*?)```/.exec(doc.slice(doc.indexOf(`\n### ${heading}\n`)))![1]!;
    const mapping = JSON.parse(json) as { verify: Record<string, unknown> };
    return { ...mapping, verify: { ...mapping.verify, secret } };
  };
  beforeEach(async () => {
    h = await startPluginApp({ hooks: { mappings: [recipe("Slack", PLAIN), recipe("Shopify", PLAIN)] } });
  });
  const send = async (path: string, headers: Record<string, string>, body: string) =>
    request(h.app).post(path).set("Content-Type", "application/json").set(headers).send(body);

  test("a Slack retry (same event_id, new X-Slack-Request-Timestamp and signature) replays the first run", async () => {
    const body = JSON.stringify({ type: "event_callback", event_id: "Ev08MFMKH6", event: { type: "message", text: "hello" } });
    const now = Math.floor(Date.now() / 1000);
    const first = await send("/hooks/slack", await signHeaders("slack", PLAIN, body, now - 4), body);
    const retry = await send(
      "/hooks/slack",
      { ...(await signHeaders("slack", PLAIN, body, now)), "X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout" },
      body,
    );
    expect([first.status, retry.status, retry.headers["idempotent-replayed"]]).toEqual([202, 202, "true"]);
    expect(retry.body.runId).toBe(first.body.runId);
  });

  test("a Shopify retry (same X-Shopify-Webhook-Id, same bytes) replays the first run", async () => {
    const body = JSON.stringify({ id: 820982911946154500, name: "#9999" });
    const headers = {
      ...(await signHeaders("shopify", PLAIN, body)),
      "X-Shopify-Topic": "orders/create",
      "X-Shopify-Webhook-Id": "b54557e4-bdd9-4b37-8a5f-bf7d70bcd043",
    };
    const first = await send("/hooks/shopify", headers, body);
    const retry = await send("/hooks/shopify", headers, body);
    expect([first.status, retry.status, retry.headers["idempotent-replayed"]]).toEqual([202, 202, "true"]);
    expect(retry.body.runId).toBe(first.body.runId);
  });
});

describe("secrets are read when hooks start", () => {
  test("an unset variable fails the start naming the key, never a value", async () => {
    const mappings = [
      { match: { path: "x" }, messageTemplate: "x", verify: { scheme: "github", secret: ["plain-old-secret", { env: "IW_TEST_UNSET_SIGNING_SECRET" }] } },
    ];
    await expect(startPluginApp({ hooks: { mappings } })).rejects.toThrow(
      /^hooks\.mappings\[0\]\.verify\.secret\[1\] refers to environment variable IW_TEST_UNSET_SIGNING_SECRET, which is not set or empty$/,
    );
  });

  test("a Standard Webhooks secret that is not base64 fails the start naming the key", async () => {
    const mappings = [{ match: { path: "x" }, messageTemplate: "x", verify: { scheme: "standard-webhooks", secret: "whsec_!!not-base64!!" } }];
    await expect(startPluginApp({ hooks: { mappings } })).rejects.toThrow("hooks.mappings[0].verify.secret is not a valid standard-webhooks secret");
  });
});
