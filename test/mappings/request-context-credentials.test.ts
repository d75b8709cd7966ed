/**
 * SPEC §6.2: credentials are never visible to templates or transforms: the
 * stripped views apply the one name rule (src/host-contract/redaction.ts).
 */
import { stripCredentialHeaders, stripCredentialQuery, stripCredentialUrl } from "../../src/mappings/request-context";

describe("the stripped views", () => {
  test("headers keep ordinary names (lower-cased) and lose credentials", () => {
    expect(
      stripCredentialHeaders({
        "X-Request-Id": "r1",
        "content-type": "application/json",
        "Api-Key": "K",
        "x-shopify-hmac-sha256": "H",
        cookie: "c",
        "x-github-event": "push",
      }),
    ).toEqual({ "x-request-id": "r1", "content-type": "application/json", "x-github-event": "push" });
  });

  test("the URL loses the token parameter in any case or encoding", () => {
    expect(stripCredentialUrl("/hooks/gh?%74oken=s&a=1")).toBe("/hooks/gh?a=1");
    expect(stripCredentialUrl("/hooks/gh?TOKEN=s")).toBe("/hooks/gh");
    expect(stripCredentialQuery({ Token: "s", a: "1" })).toEqual({ a: "1" });
  });

  test("query and URL lose token, access_token, api_key and encoded forms", () => {
    expect(stripCredentialQuery({ token: "t", access_token: "a", api_key: "k", env: "prod" })).toEqual({ env: "prod" });
    expect(stripCredentialUrl("/hooks/x?access%5Ftoken=a&env=prod&Api-Key=k&%74oken=t")).toBe("/hooks/x?env=prod");
  });
});
