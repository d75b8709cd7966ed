/**
 * The one redaction rule (SPEC §9): credential names by whole name tokens (with
 * the exemptions), Bearer/Basic values anywhere, configured secrets anywhere.
 */
import {
  isCredentialName,
  normaliseParamName,
  redactHeaders,
  redactMeta,
  redactQueryCredentials,
  redactText,
  secretValues,
} from "../../src/host-contract/redaction";
import { extractToken } from "../../src/intake/auth/token-carrier";

const SECRET = "SECRETHOOKTOKEN-0123456789abcdef";

describe("isCredentialName", () => {
  test.each([
    "authorization",
    "Proxy-Authorization",
    "cookie",
    "X-Service-Token",
    "x-hub-signature-256",
    "Stripe-Signature",
    "x-gitlab-token",
    "x-webhook-secret",
    "X-Shopify-Hmac-Sha256",
    "api-key",
    "x-api-key",
    "api_key",
    "apikey",
    "apiKey",
    "password",
    "db_passwd",
    "pwd",
    "token",
    "TOKEN",
    "access_token",
    "accessToken",
    "refresh_token",
    "client_secret",
    "key",
    "sig",
    "access%5Ftoken",
    "%74oken",
    "%2574oken",
    "api+key",
    " token ",
    "x-auth-key",
    "x-auth",
    "x-hook-key",
    "x-access-key",
    "x-client-cert",
    "auth",
    "hub.verify_token",
    "x-session-token",
    "credentials",
    "set-cookie",
    "apitoken",
  ])("%s is a credential", (name) => expect(isCredentialName(name)).toBe(true));

  test.each([
    "x-request-id",
    "content-type",
    "user-agent",
    "x-github-event",
    "x-github-delivery",
    "idempotency-key",
    "Idempotency-Key",
    "webhook-id",
    "env",
    "author",
    "authors",
    "keyword",
    "monkey",
    "%ZZtok",
    "hub.mode",
    "hub.challenge",
    "sessionKey",
    "idempotencyKey",
    "X-Event-Key",
    "keep-alive",
    "page",
  ])("%s is not a credential", (name) => expect(isCredentialName(name)).toBe(false));

  it("decodes names like the receiving side", () => {
    expect(normaliseParamName("ToK%65n")).toBe("token");
    expect(normaliseParamName("+token+")).toBe("token");
  });
});

describe("redactQueryCredentials", () => {
  it.each([
    [`/hooks/wake?token=${SECRET}`, "/hooks/wake?token=[REDACTED]"],
    [`/hooks/wake?%74oken=${SECRET}`, "/hooks/wake?%74oken=[REDACTED]"],
    [`/hooks/wake?tOkEn=${SECRET}`, "/hooks/wake?tOkEn=[REDACTED]"],
    [`/hooks/wake?a=1&%54oKen=${SECRET}&b=2`, "/hooks/wake?a=1&%54oKen=[REDACTED]&b=2"],
    [`/hooks/wake?token=${SECRET}#frag`, "/hooks/wake?token=[REDACTED]#frag"],
    [`token=${SECRET}&x=1`, "token=[REDACTED]&x=1"],
    [`request to /hooks/agent?%74oken=${SECRET} failed`, "request to /hooks/agent?%74oken=[REDACTED] failed"],
    [
      "/h?api_key=a&access_token=b&client_secret=c&password=d&apikey=e&secret=f",
      "/h?api_key=[REDACTED]&access_token=[REDACTED]&client_secret=[REDACTED]&password=[REDACTED]&apikey=[REDACTED]&secret=[REDACTED]",
    ],
    ["/h?auth=a&pwd=b&author=me&page=2", "/h?auth=[REDACTED]&pwd=[REDACTED]&author=me&page=2"],
    ["/meta?hub.mode=x&hub.verify_token=vt&hub.challenge=c", "/meta?hub.mode=x&hub.verify_token=[REDACTED]&hub.challenge=c"],
  ])("%s", (input, expected) => expect(redactQueryCredentials(input)).toBe(expected));

  it("hides every token the carrier would accept (the carrier and the redaction agree)", () => {
    for (const name of ["token", "%74oken", "tok%65n", "%74%6f%6b%65%6e"]) {
      const url = `/hooks/wake?${name}=${SECRET}`;
      expect(extractToken({}, url)).toEqual({ carrier: "query", token: SECRET });
      expect(redactQueryCredentials(url)).not.toContain(SECRET);
    }
  });

  it("leaves text without parameters alone", () => {
    expect(redactText("hooks.token must be at least 16 characters")).toBe("hooks.token must be at least 16 characters");
  });
});

describe("values", () => {
  it("Bearer and Basic credentials are hidden in any text", () => {
    expect(redactText(`Authorization: Bearer ${SECRET}`)).toBe("Authorization: Bearer [REDACTED]");
    expect(redactText("forwarded Basic dXNlcjpwYXNz, next")).toBe("forwarded Basic [REDACTED], next");
  });

  it("configured secrets are hidden wherever they appear; short ones are left to the name rule", () => {
    const secrets = secretValues([SECRET, "short", undefined]);
    expect(secrets.values).toEqual([SECRET]);
    expect(redactText(`/h?note=${SECRET}x`, secrets)).toBe("/h?note=[REDACTED]x");
  });

  it("redactHeaders hides credential names, configured names, scheme credentials and secrets", () => {
    const out = redactHeaders(
      {
        "X-Auth-Key": "k1",
        "x-forwarded-authorization": "Basic dXNlcjpwYXNz",
        "x-forwarded-note": "Bearer abc.def",
        "x-my-check": "abc",
        "Idempotency-Key": "order-7",
        "x-github-event": "push",
        "x-echo": `is ${SECRET}`,
      },
      new Set(["x-my-check"]),
      secretValues([SECRET]),
    );
    expect(out).toEqual({
      "x-auth-key": "[REDACTED]",
      "x-forwarded-authorization": "[REDACTED]",
      "x-forwarded-note": "Bearer [REDACTED]",
      "x-my-check": "[REDACTED]",
      "idempotency-key": "order-7",
      "x-github-event": "push",
      "x-echo": "is [REDACTED]",
    });
  });

  it("a URL's userinfo is hidden in any text and header; a URL without one, or with an @ in its path, is left alone", () => {
    expect(redactText("POST http://alice:pw-1@127.0.0.1:8080/hooks/x?a=1")).toBe("POST http://[REDACTED]@127.0.0.1:8080/hooks/x?a=1");
    expect(redactText("see https://ghp_token123@github.com/o/r and ssh://git@host")).toBe("see https://[REDACTED]@github.com/o/r and ssh://[REDACTED]@host");
    expect(redactText("http://example.com/users/me@example.com?x=y")).toBe("http://example.com/users/me@example.com?x=y");
    expect(redactHeaders({ referer: "https://u:p@example.com/page" })).toEqual({ referer: "https://[REDACTED]@example.com/page" });
  });

  it("regression: a password with a raw @ in a URL's userinfo left its tail after the first @ visible; the userinfo runs to the last @ before the host", () => {
    expect(redactText("POST http://alice:p@ss@127.0.0.1:8080/hooks/x?a=1")).toBe("POST http://[REDACTED]@127.0.0.1:8080/hooks/x?a=1");
    expect(redactText("http://alice:p@ss@host/a@b and https://u@v:w@host2/c")).toBe("http://[REDACTED]@host/a@b and https://[REDACTED]@host2/c");
    expect(redactHeaders({ referer: "https://u:p@s@example.com/page" })).toEqual({ referer: "https://[REDACTED]@example.com/page" });
  });

  it("redactHeaders hides Basic in a header of an innocent name", () => {
    expect(redactHeaders({ "x-upstream": "Basic dXNlcjpwYXNz" })).toEqual({ "x-upstream": "Basic [REDACTED]" });
  });

  it("redactMeta walks objects: credential-named keys, strings, depth bound", () => {
    expect(
      redactMeta({ url: `/hooks/wake?tok%65n=${SECRET}`, nested: [{ u: `?ToKeN=${SECRET}` }], token: SECRET, sessionKey: "hook:x", requestId: "r" }),
    ).toEqual({
      url: "/hooks/wake?tok%65n=[REDACTED]",
      nested: [{ u: "?ToKeN=[REDACTED]" }],
      token: "[REDACTED]",
      sessionKey: "hook:x",
      requestId: "r",
    });
  });
});
