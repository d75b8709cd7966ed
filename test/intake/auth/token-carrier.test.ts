import { extractToken, hasQueryToken } from "../../../src/intake/auth/token-carrier";

describe("extractToken", () => {
  it("prefers Authorization: Bearer, then x-service-token, then ?token=", () => {
    expect(extractToken({ authorization: "Bearer a", "x-service-token": "b" }, "/wake?token=c")).toEqual({ carrier: "bearer", token: "a" });
    expect(extractToken({ "x-service-token": "b" }, "/wake?token=c")).toEqual({ carrier: "header", token: "b" });
    expect(extractToken({}, "/wake?x=1&token=c")).toEqual({ carrier: "query", token: "c" });
  });

  it("accepts any case of the Bearer scheme and trims", () => {
    expect(extractToken({ authorization: "  BEARER   tok  " }, "/")).toEqual({ carrier: "bearer", token: "tok" });
  });

  it("ignores other Authorization schemes", () => {
    expect(extractToken({ authorization: "Basic dXNlcjpwYXNz" }, "/")).toBeUndefined();
    expect(extractToken({ authorization: "Basic dXNlcjpwYXNz", "x-service-token": "b" }, "/")).toEqual({ carrier: "header", token: "b" });
  });

  it("decodes the query token and treats an empty one as presented", () => {
    expect(extractToken({}, "/wake?token=a%2Bb")).toEqual({ carrier: "query", token: "a+b" });
    expect(extractToken({}, "/wake?token=")).toEqual({ carrier: "query", token: "" });
  });

  it("returns undefined without any carrier", () => {
    expect(extractToken({}, "/wake?tokens=x")).toBeUndefined();
  });
});

describe("hasQueryToken", () => {
  it("detects the parameter, even empty", () => {
    expect(hasQueryToken("/wake?token=")).toBe(true);
    expect(hasQueryToken("/wake?a=1&token=x")).toBe(true);
    expect(hasQueryToken("/wake?tokenx=1")).toBe(false);
    expect(hasQueryToken("/wake")).toBe(false);
  });
});
