import { redactHeaders, redactUrlCredentials } from "../../src/safety/redact";

describe("redactHeaders (what the delivery ledger keeps)", () => {
  it.each([
    "Authorization",
    "Proxy-Authorization",
    "x-service-token",
    "Cookie",
    "Set-Cookie",
    "X-Hub-Signature",
    "X-Hub-Signature-256",
    "Stripe-Signature",
    "webhook-signature",
    "X-Slack-Signature",
    "svix-signature",
    "X-Twilio-Signature",
    "X-Shopify-Hmac-Sha256",
    "X-Gitlab-Token",
    "X-Api-Key",
    "api_key",
  ])("hides the value of %s", (name) => {
    expect(redactHeaders({ [name]: "s3cret-value" })).toEqual({ [name.toLowerCase()]: "[REDACTED]" });
  });

  it("hides configured verify headers of any name, keeps the others, and hides a Bearer credential anywhere", () => {
    const out = redactHeaders({ "x-my-check": "abc", "x-github-event": "push", "x-forwarded-note": "Bearer abc.def" }, new Set(["x-my-check"]));
    expect(out).toEqual({ "x-my-check": "[REDACTED]", "x-github-event": "push", "x-forwarded-note": "Bearer [REDACTED]" });
  });
});

describe("redactUrlCredentials", () => {
  it("hides every credential-named query parameter, not only token", () => {
    expect(redactUrlCredentials("/hooks/x?token=t1&sig=s2&access_token=a3&page=2")).toBe("/hooks/x?token=[REDACTED]&sig=[REDACTED]&access_token=[REDACTED]&page=2");
  });
});
