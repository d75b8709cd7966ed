/**
 * Sender verification (SPEC §10), signed the way real senders sign: GitHub with
 * @octokit/webhooks, Standard Webhooks with `standardwebhooks`, Svix with `svix`,
 * Stripe with `stripe`. Slack, Shopify, the generic HMAC and token-header have no
 * small official signer on npm; their requests are built from the senders'
 * documented recipes. One builder makes a valid request per scheme; each negative
 * case changes one thing.
 */
import { createHmac } from "node:crypto";
import { Webhooks } from "@octokit/webhooks";
import { Webhook as StandardWebhook } from "standardwebhooks";
import { Webhook as SvixWebhook } from "svix";
import Stripe from "stripe";
import { createVerifier, type VerifierConfig } from "../../../src/safety/signatures/create-verifier";
import type { SignedRequest, VerifyScheme } from "../../../src/safety/signatures/types";

const NOW = 1_760_000_000_000;
const NOW_S = NOW / 1000;
const BODY = Buffer.from('{"id":"evt_1","action":"opened","text":"caf\u00e9 \u2713"}');
const GH_SECRET = "It's a Secret to Everybody";
const SW_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SW_SECRET_2 = "whsec_dGhpcyBpcyBhIHNlY29uZCBzZWNyZXQgb2YgMzI=";
const STRIPE_SECRET = "whsec_test_secret_for_stripe_0123456789";
const PLAIN_SECRET = "shpss_0123456789abcdef0123456789abcdef";

const stripe = new Stripe("sk_test_not_used_for_network");
const lower = (h: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
const hex = (secret: string, data: string | Buffer): string => createHmac("sha256", secret).update(data).digest("hex");
const b64 = (secret: string, data: string | Buffer): string => createHmac("sha256", secret).update(data).digest("base64");

/** A valid request of each scheme, signed at `tsS` (seconds) with `secret`. */
async function signed(scheme: VerifyScheme, secret: string, body = BODY, tsS = NOW_S): Promise<SignedRequest> {
  switch (scheme) {
    case "github":
      return { rawBody: body, headers: lower({ "X-Hub-Signature-256": await new Webhooks({ secret }).sign(body.toString("utf8")) }) };
    case "standard-webhooks": {
      const at = new Date(tsS * 1000);
      return {
        rawBody: body,
        headers: lower({
          "webhook-id": "msg_1",
          "webhook-timestamp": String(tsS),
          "webhook-signature": new StandardWebhook(secret).sign("msg_1", at, body.toString("utf8")),
        }),
      };
    }
    case "stripe":
      return {
        rawBody: body,
        headers: lower({ "Stripe-Signature": stripe.webhooks.generateTestHeaderString({ payload: body.toString("utf8"), secret, timestamp: tsS }) }),
      };
    case "slack":
      return {
        rawBody: body,
        headers: lower({
          "X-Slack-Request-Timestamp": String(tsS),
          "X-Slack-Signature": `v0=${hex(secret, Buffer.concat([Buffer.from(`v0:${tsS}:`), body]))}`,
        }),
      };
    case "shopify":
      return { rawBody: body, headers: lower({ "X-Shopify-Hmac-Sha256": b64(secret, body) }) };
    case "hmac-sha256":
      return { rawBody: body, headers: lower({ "X-Signature": `sha256=${hex(secret, body)}` }) };
    case "token-header":
      return { rawBody: body, headers: lower({ "X-Gitlab-Token": secret }) };
  }
}

const SECRET: Record<VerifyScheme, string> = {
  github: GH_SECRET,
  "standard-webhooks": SW_SECRET,
  stripe: STRIPE_SECRET,
  slack: PLAIN_SECRET,
  shopify: PLAIN_SECRET,
  "hmac-sha256": PLAIN_SECRET,
  "token-header": PLAIN_SECRET,
};
const EXTRA: Partial<Record<VerifyScheme, Partial<VerifierConfig>>> = {
  "hmac-sha256": { header: "X-Signature", prefix: "sha256=" },
  "token-header": { header: "X-Gitlab-Token" },
};
const verifierFor = (scheme: VerifyScheme, secrets: string[] = [SECRET[scheme]], toleranceSeconds?: number) =>
  createVerifier({ scheme, secrets, toleranceSeconds, now: () => NOW, ...EXTRA[scheme] });

/** The header that carries the signature (or token) of each scheme. */
const SIG_HEADER: Record<VerifyScheme, string> = {
  github: "X-Hub-Signature-256",
  "standard-webhooks": "webhook-signature",
  stripe: "Stripe-Signature",
  slack: "X-Slack-Signature",
  shopify: "X-Shopify-Hmac-Sha256",
  "hmac-sha256": "X-Signature",
  "token-header": "X-Gitlab-Token",
};
const SCHEMES = Object.keys(SIG_HEADER) as VerifyScheme[];
/** A valid secret of the scheme's form other than SECRET[scheme]. */
const otherSecret = (scheme: VerifyScheme): string => (scheme === "standard-webhooks" ? SW_SECRET_2 : "a-different-secret-0123456789");
/** The longest signature-looking piece of a header value (the digest itself). */
const digestIn = (value: string): string =>
  value
    .split(/[ ,]/)
    .map((p) => p.replace(/^(sha256=|v0=|v1=)/, ""))
    .sort((a, b) => b.length - a.length)[0]!;
const BODY_SIGNED = SCHEMES.filter((s) => s !== "token-header");

describe("createVerifier", () => {
  it.each(SCHEMES)("%s: a request signed by the sender's recipe is verified", async (scheme) => {
    expect(verifierFor(scheme)(await signed(scheme, SECRET[scheme]))).toBeUndefined();
  });

  it.each(SCHEMES)("%s: a missing signature header → invalid_signature naming the header", async (scheme) => {
    const req = await signed(scheme, SECRET[scheme]);
    const headers = { ...req.headers };
    delete headers[SIG_HEADER[scheme].toLowerCase()];
    expect(verifierFor(scheme)({ ...req, headers })).toEqual({
      code: "invalid_signature",
      header: SIG_HEADER[scheme],
      message: `${SIG_HEADER[scheme]} is missing`,
    });
  });

  it.each(SCHEMES)("%s: signed with another secret → invalid_signature, and the message shows no expected value", async (scheme) => {
    const failure = verifierFor(scheme)(await signed(scheme, otherSecret(scheme)));
    expect(failure).toMatchObject({ code: "invalid_signature", header: SIG_HEADER[scheme] });
    const expected = digestIn((await signed(scheme, SECRET[scheme])).headers[SIG_HEADER[scheme].toLowerCase()]!);
    expect(expected.length).toBeGreaterThanOrEqual(16);
    expect(failure!.message).not.toContain(expected);
    expect(failure!.message).not.toContain(SECRET[scheme]);
  });

  it.each(BODY_SIGNED)("%s: one tampered byte of the body → invalid_signature", async (scheme) => {
    const req = await signed(scheme, SECRET[scheme]);
    const tampered = Buffer.from(req.rawBody);
    tampered[5] = tampered[5]! ^ 1;
    expect(verifierFor(scheme)({ ...req, rawBody: tampered })).toMatchObject({ code: "invalid_signature", header: SIG_HEADER[scheme] });
  });

  it.each(BODY_SIGNED)("%s: the same JSON re-serialised (other bytes) → invalid_signature", async (scheme) => {
    const req = await signed(scheme, SECRET[scheme]);
    const reserialised = Buffer.from(JSON.stringify(JSON.parse(req.rawBody.toString("utf8")), null, 2));
    expect(reserialised.equals(req.rawBody)).toBe(false);
    expect(verifierFor(scheme)({ ...req, rawBody: reserialised })).toMatchObject({ code: "invalid_signature" });
  });

  it.each(SCHEMES)("%s: rotation — with two secrets both verify; with only the new one the old is refused", async (scheme) => {
    const oldSecret = otherSecret(scheme);
    const both = verifierFor(scheme, [oldSecret, SECRET[scheme]]);
    expect(both(await signed(scheme, oldSecret))).toBeUndefined();
    expect(both(await signed(scheme, SECRET[scheme]))).toBeUndefined();
    const newOnly = verifierFor(scheme, [SECRET[scheme]]);
    expect(newOnly(await signed(scheme, oldSecret))).toMatchObject({ code: "invalid_signature" });
    expect(newOnly(await signed(scheme, SECRET[scheme]))).toBeUndefined();
  });

  const TIMESTAMP_HEADER = { "standard-webhooks": "webhook-timestamp", stripe: "Stripe-Signature", slack: "X-Slack-Request-Timestamp" } as const;
  describe.each(Object.keys(TIMESTAMP_HEADER) as Array<keyof typeof TIMESTAMP_HEADER>)("%s timestamps", (scheme) => {
    it("301 s old with the default tolerance → signature_expired naming the header", async () => {
      const failure = verifierFor(scheme)(await signed(scheme, SECRET[scheme], BODY, NOW_S - 301));
      expect(failure).toEqual({
        code: "signature_expired",
        header: TIMESTAMP_HEADER[scheme],
        message: `${TIMESTAMP_HEADER[scheme]} is 301 s old; signatures older than 300 s are refused`,
      });
    });
    it("301 s in the future → signature_expired", async () => {
      expect(verifierFor(scheme)(await signed(scheme, SECRET[scheme], BODY, NOW_S + 301))).toMatchObject({
        code: "signature_expired",
        header: TIMESTAMP_HEADER[scheme],
      });
    });
    it("299 s old is fresh; toleranceSeconds widens the window", async () => {
      expect(verifierFor(scheme)(await signed(scheme, SECRET[scheme], BODY, NOW_S - 299))).toBeUndefined();
      expect(verifierFor(scheme, [SECRET[scheme]], 900)(await signed(scheme, SECRET[scheme], BODY, NOW_S - 600))).toBeUndefined();
    });
    it("a stale timestamp with a wrong signature is invalid_signature (freshness is only told to genuine signatures)", async () => {
      expect(verifierFor(scheme)(await signed(scheme, otherSecret(scheme), BODY, NOW_S - 1000))).toMatchObject({ code: "invalid_signature" });
    });
  });

  it("standard-webhooks: Svix's svix-* headers, signed by the svix library, are verified", async () => {
    const at = new Date(NOW);
    const sig = new SvixWebhook(SW_SECRET).sign("msg_svix", at, BODY.toString("utf8"));
    const req = { rawBody: BODY, headers: { "svix-id": "msg_svix", "svix-timestamp": String(NOW_S), "svix-signature": sig } };
    expect(verifierFor("standard-webhooks")(req)).toBeUndefined();
    expect(verifierFor("standard-webhooks")({ ...req, headers: { ...req.headers, "svix-id": "msg_other" } })).toMatchObject({
      code: "invalid_signature",
      header: "svix-signature",
    });
  });

  it("standard-webhooks: a signature list with one matching entry among others passes", async () => {
    const req = await signed("standard-webhooks", SW_SECRET);
    const list = `v1,${Buffer.alloc(32, 7).toString("base64")} v2,ignored ${req.headers["webhook-signature"]}`;
    expect(verifierFor("standard-webhooks")({ ...req, headers: { ...req.headers, "webhook-signature": list } })).toBeUndefined();
  });

  it("stripe: several v1 signatures (Stripe sends one per active secret) — any match passes", async () => {
    const req = await signed("stripe", STRIPE_SECRET);
    const header = `${req.headers["stripe-signature"]},v1=${"0".repeat(64)}`;
    expect(verifierFor("stripe")({ ...req, headers: { "stripe-signature": header } })).toBeUndefined();
  });

  it.each([
    ["github", "sha1=abc", "X-Hub-Signature-256 must be sha256=<64 hexadecimal digits>"],
    ["github", `sha256=${"z".repeat(64)}`, "X-Hub-Signature-256 must be sha256=<64 hexadecimal digits>"],
    ["stripe", "v1=abc", "Stripe-Signature must be t=<Unix seconds>,v1=<64 hexadecimal digits>"],
    ["slack", "v1=abc", "X-Slack-Signature must be v0=<64 hexadecimal digits>"],
    ["shopify", "not base64!", "X-Shopify-Hmac-Sha256 must be <a base64 SHA-256 digest>"],
    ["standard-webhooks", "v2,abc", "webhook-signature must list v1,<base64 signature> entries separated by spaces"],
  ] as const)("%s: a malformed header %j → invalid_signature: %s", async (scheme, value, message) => {
    const req = await signed(scheme, SECRET[scheme]);
    const headers = { ...req.headers, [SIG_HEADER[scheme].toLowerCase()]: value };
    expect(verifierFor(scheme)({ ...req, headers })).toEqual({ code: "invalid_signature", header: SIG_HEADER[scheme], message });
  });

  it("a secret that is not a Standard Webhooks secret fails when the verifier is built (at start)", () => {
    expect(() => createVerifier({ scheme: "standard-webhooks", secrets: ["whsec_!!!"] })).toThrow();
  });
});
