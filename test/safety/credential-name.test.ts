/**
 * SPEC §6.2: credentials are never visible to templates or transforms. The one
 * name rule shared by headers and query parameters, and the stripped views.
 */
import { isCredentialName } from "../../src/safety/credential-name";
import { stripCredentialHeaders, stripCredentialQuery, stripCredentialUrl } from "../../src/mappings/request-context";

describe("isCredentialName", () => {
  test.each([
    "authorization",
    "Proxy-Authorization",
    "cookie",
    "X-Service-Token",
    "x-hub-signature-256",
    "X-Hub-Signature",
    "webhook-signature",
    "Stripe-Signature",
    "x-gitlab-token",
    "x-webhook-secret",
    "X-Shopify-Hmac-Sha256",
    "api-key",
    "Api-Key",
    "x-api-key",
    "api_key",
    "apikey",
    "password",
    "db_passwd",
    "token",
    "TOKEN",
    "access_token",
    "refresh_token",
    "client_secret",
    "key",
    "sig",
    "access%5Ftoken",
    "%74oken",
    "%2574oken",
    "api+key",
    " token ",
  ])("%s is a credential", (name) => {
    expect(isCredentialName(name)).toBe(true);
  });

  test.each(["x-request-id", "content-type", "user-agent", "x-github-event", "x-github-delivery", "idempotency-key", "webhook-id", "env", "author", "keyword", "monkey", "%ZZtok"])(
    "%s is not a credential",
    (name) => {
      expect(isCredentialName(name)).toBe(false);
    },
  );
});

describe("the stripped views", () => {
  test("headers keep ordinary names (lower-cased) and lose credentials", () => {
    expect(
      stripCredentialHeaders({ "X-Request-Id": "r1", "content-type": "application/json", "Api-Key": "K", "x-shopify-hmac-sha256": "H", cookie: "c", "x-github-event": "push" }),
    ).toEqual({ "x-request-id": "r1", "content-type": "application/json", "x-github-event": "push" });
  });

  test("query and URL lose token, access_token, api_key and encoded forms", () => {
    expect(stripCredentialQuery({ token: "t", access_token: "a", api_key: "k", env: "prod" })).toEqual({ env: "prod" });
    expect(stripCredentialUrl("/hooks/x?access%5Ftoken=a&env=prod&Api-Key=k&%74oken=t")).toBe("/hooks/x?env=prod");
  });
});
