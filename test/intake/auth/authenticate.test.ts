import { createAuthenticator } from "../../../src/intake/auth/authenticate";

const TOKEN = "unit-test-token-0123456789";
const config = { token: TOKEN, allowQueryToken: true, authThrottle: { maxFailures: 2, windowSeconds: 60 } };

describe("createAuthenticator", () => {
  const req = (over: Partial<{ headers: Record<string, string>; url: string; client: string }> = {}) => ({
    headers: {},
    url: "/hooks/wake",
    client: "c1",
    ...over,
  });

  it("passes the right token and reports the carrier", () => {
    const a = createAuthenticator({ config });
    expect(a.authenticate(req({ headers: { authorization: `Bearer ${TOKEN}` } }))).toEqual({ ok: true, value: { carrier: "bearer" } });
    expect(a.authenticate(req({ url: `/hooks/wake?token=${TOKEN}` }))).toEqual({ ok: true, value: { carrier: "query" } });
  });

  it("401 with a challenge header for a missing or wrong token", () => {
    const a = createAuthenticator({ config });
    const missing = a.authenticate(req());
    expect(!missing.ok && [missing.error.code, missing.error.headers]).toEqual(["unauthorized", { "WWW-Authenticate": 'Bearer realm="hooks"' }]);
    const wrong = a.authenticate(req({ headers: { "x-service-token": "nope" } }));
    expect(!wrong.ok && wrong.error.message).toBe("The hook token is invalid.");
  });

  it("429 with Retry-After past maxFailures, cleared by the right token", () => {
    const a = createAuthenticator({ config, clock: () => 0 });
    a.authenticate(req());
    a.authenticate(req());
    const third = a.authenticate(req());
    expect(!third.ok && [third.error.code, third.error.status, third.error.headers]).toEqual(["too_many_requests", 429, { "Retry-After": "60" }]);
    expect(a.authenticate(req({ headers: { authorization: `Bearer ${TOKEN}` } })).ok).toBe(true);
    const after = a.authenticate(req());
    expect(!after.ok && after.error.code).toBe("unauthorized");
  });

  it("a throttled client gets 429 for a refused query token, which is itself not counted", () => {
    const a = createAuthenticator({ config: { ...config, allowQueryToken: false }, clock: () => 0 });
    for (let i = 0; i < 3; i++) a.authenticate(req());
    const r = a.authenticate(req({ url: `/hooks/wake?token=${TOKEN}` }));
    expect(!r.ok && [r.error.code, r.error.headers]).toEqual(["too_many_requests", { "Retry-After": "60" }]);
    expect(a.authenticate(req({ client: "c2", url: `/hooks/wake?token=${TOKEN}` })).ok).toBe(false);
    expect(a.throttle.size).toBe(1);
  });

  it("allowQueryToken false → query_token_not_allowed, before the token is even compared", () => {
    const a = createAuthenticator({ config: { ...config, allowQueryToken: false } });
    const r = a.authenticate(req({ url: `/hooks/wake?token=${TOKEN}` }));
    expect(!r.ok && [r.error.code, r.error.status]).toEqual(["query_token_not_allowed", 400]);
    expect(a.throttle.size).toBe(0);
  });
});
