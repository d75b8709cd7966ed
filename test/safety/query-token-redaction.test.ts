/**
 * SPEC §9 "query tokens redacted from every log line": the token query parameter is
 * recognised by its decoded name (the carrier decodes with URLSearchParams, so
 * `?%74oken=` authenticates), in any case, and its value never survives.
 */
import { redact, redactString } from "../../src/safety/redact";
import { isTokenParamName, redactQueryTokens } from "../../src/safety/query-token-redaction";
import { stripCredentialQuery, stripCredentialUrl } from "../../src/mappings/request-context";
import { extractToken } from "../../src/http/auth/token-carrier";

const SECRET = "SECRETHOOKTOKEN-0123456789abcdef";

describe("isTokenParamName", () => {
  it.each(["token", "TOKEN", "ToKeN", "%74oken", "tok%65n", "%54%4F%4B%45%4E", "%2574oken", "+token", "token+", "t%6Fk%65n"])(
    "%s is the token parameter",
    (name) => expect(isTokenParamName(name)).toBe(true),
  );
  it.each(["tokens", "x-token", "tok", "", "%ZZtoken", "to%00ken", "access_token"])("%s is not", (name) =>
    expect(isTokenParamName(name)).toBe(false),
  );
});

describe("redactQueryTokens", () => {
  it.each([
    [`/hooks/wake?token=${SECRET}`, "/hooks/wake?token=[REDACTED]"],
    [`/hooks/wake?%74oken=${SECRET}`, "/hooks/wake?%74oken=[REDACTED]"],
    [`/hooks/wake?tok%65n=${SECRET}`, "/hooks/wake?tok%65n=[REDACTED]"],
    [`/hooks/wake?TOKEN=${SECRET}`, "/hooks/wake?TOKEN=[REDACTED]"],
    [`/hooks/wake?tOkEn=${SECRET}`, "/hooks/wake?tOkEn=[REDACTED]"],
    [`/hooks/wake?a=1&%54oKen=${SECRET}&b=2`, "/hooks/wake?a=1&%54oKen=[REDACTED]&b=2"],
    [`/hooks/wake?token=${SECRET}#frag`, "/hooks/wake?token=[REDACTED]"],
    [`/hooks/wake?%ZZ=1&token=${SECRET}`, "/hooks/wake?%ZZ=1&token=[REDACTED]"],
    [`token=${SECRET}&x=1`, "token=[REDACTED]&x=1"],
    [`request to /hooks/agent?%74oken=${SECRET} failed`, "request to /hooks/agent?%74oken=[REDACTED] failed"],
  ])("%s", (input, expected) => {
    expect(redactQueryTokens(input)).toBe(expected);
  });

  it("leaves other parameters and text alone", () => {
    expect(redactQueryTokens("/hooks/gh?tokens=1&x-token=2&a=b")).toBe("/hooks/gh?tokens=1&x-token=2&a=b");
    expect(redactQueryTokens("hooks.token must be at least 16 characters")).toBe("hooks.token must be at least 16 characters");
  });

  it("hides every token the carrier would accept (the carrier and the redaction agree)", () => {
    for (const name of ["token", "%74oken", "tok%65n", "%74%6f%6b%65%6e"]) {
      const url = `/hooks/wake?${name}=${SECRET}`;
      expect(extractToken({}, url)).toEqual({ carrier: "query", token: SECRET });
      expect(redactQueryTokens(url)).not.toContain(SECRET);
    }
  });
});

describe("the logger's last line of defence", () => {
  it("redactString hides encoded and upper-case query tokens and Bearer credentials", () => {
    expect(redactString(`/hooks/wake?%74oken=${SECRET}`)).toBe("/hooks/wake?%74oken=[REDACTED]");
    expect(redactString(`/hooks/wake?TOKEN=${SECRET}`)).toBe("/hooks/wake?TOKEN=[REDACTED]");
    expect(redactString(`Authorization: Bearer ${SECRET}`)).toBe("Authorization: Bearer [REDACTED]");
  });

  it("redact walks meta objects", () => {
    expect(redact({ url: `/hooks/wake?tok%65n=${SECRET}`, nested: [{ u: `?ToKeN=${SECRET}` }], token: SECRET })).toEqual({
      url: "/hooks/wake?tok%65n=[REDACTED]",
      nested: [{ u: "?ToKeN=[REDACTED]" }],
      token: "[REDACTED]",
    });
  });
});

describe("the mapping engine's credential-free view uses the same rule", () => {
  it("stripCredentialUrl drops the token parameter in any case or encoding", () => {
    expect(stripCredentialUrl(`/hooks/gh?%74oken=${SECRET}&a=1`)).toBe("/hooks/gh?a=1");
    expect(stripCredentialUrl(`/hooks/gh?TOKEN=${SECRET}`)).toBe("/hooks/gh");
  });

  it("stripCredentialQuery drops decoded token names in any case", () => {
    expect(stripCredentialQuery({ Token: SECRET, a: "1" })).toEqual({ a: "1" });
  });
});
