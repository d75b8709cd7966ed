/**
 * Authentication (SPEC §4.1): token carriers, the deprecated query
 * token, and auth-failure throttling — through the router mounted like a host does.
 */
import request from "supertest";
import { bearer, createRouterApp, ROUTER_TEST_TOKEN, type RouterApp } from "../helpers/router-app";

const wake = { text: "disk almost full" };

describe("auth carriers: which token carriers are accepted, warned about or refused", () => {
  let h: RouterApp;
  beforeEach(() => {
    h = createRouterApp();
  });
  afterEach(() => h.close());

  it("no token → 401 unauthorized with a Bearer challenge", async () => {
    const res = await request(h.app).post("/hooks/wake").send(wake);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, code: "unauthorized", error: "A hook token is required: send it as Authorization: Bearer <token>." });
    expect(res.headers["www-authenticate"]).toBe('Bearer realm="hooks"');
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("wrong Bearer token → 401 unauthorized", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer("wrong-token-wrong-token")).send(wake);
    expect(res.status).toBe(401);
    expect(res.body.code).toBe("unauthorized");
    expect(res.body.error).toBe("The hook token is invalid.");
  });

  it("a token that is a prefix of the real one → 401", async () => {
    const res = await request(h.app)
      .post("/hooks/wake")
      .set(bearer(ROUTER_TEST_TOKEN.slice(0, -1)))
      .send(wake);
    expect(res.status).toBe(401);
  });

  it("Authorization: Bearer → 200", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send(wake);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "now" });
    expect(res.headers.deprecation).toBeUndefined();
  });

  it("the Bearer scheme is case-insensitive", async () => {
    const res = await request(h.app).post("/hooks/wake").set("Authorization", `bearer ${ROUTER_TEST_TOKEN}`).send(wake);
    expect(res.status).toBe(200);
  });

  it("x-service-token → 200", async () => {
    const res = await request(h.app).post("/hooks/wake").set("x-service-token", ROUTER_TEST_TOKEN).send(wake);
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBeUndefined();
  });

  it("the first carrier present is the one used: a wrong Bearer is not rescued by a right x-service-token", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer("wrong-token-wrong-token")).set("x-service-token", ROUTER_TEST_TOKEN).send(wake);
    expect(res.status).toBe(401);
  });

  it("?token= → 200 with Deprecation and Warning headers, and the log never contains the token", async () => {
    const res = await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake);
    expect(res.status).toBe(200);
    expect(res.headers.deprecation).toBe("true");
    expect(res.headers.warning).toMatch(/^299 - ".*deprecated.*"$/);
    await h.host.waitFor(() => h.host.logs.some((l) => /deprecated/.test(l.message)), 2000, "deprecation warning");
    const lines = h.logText();
    expect(lines.some((l) => l.includes("token=[REDACTED]"))).toBe(true);
    for (const line of lines) expect(line).not.toContain(ROUTER_TEST_TOKEN);
  });

  it("the deprecation warning reads cleanly after redaction (no ?token=[REDACTED] or Bearer [REDACTED] in its text)", async () => {
    expect((await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake)).status).toBe(200);
    await h.host.waitFor(() => h.host.logs.some((l) => l.level === "warn"), 2000, "deprecation warning");
    const warning = h.host.logs.find((l) => l.level === "warn")!;
    expect(warning.message).toBe("hook token sent in the query string (deprecated); send it in the Authorization header instead");
    expect(warning.meta?.url).toBe("/hooks/wake?token=[REDACTED]");
  });

  describe("a percent-encoded or differently-cased token parameter never reaches the log (SPEC §9)", () => {
    const cases: Array<[string, string, number, string | object]> = [
      ["?%74oken= (authenticates) with an invalid body → 400", `%74oken=${ROUTER_TEST_TOKEN}`, 400, { text: "" }],
      ["?tok%65n= (authenticates) with an oversized body → 413", `tok%65n=${ROUTER_TEST_TOKEN}`, 413, { text: "x".repeat(300_000) }],
      ["?tok%65n= with a wrong token → 401", `tok%65n=${ROUTER_TEST_TOKEN}-wrong`, 401, wake],
      ["?TOKEN= → 401", `TOKEN=${ROUTER_TEST_TOKEN}`, 401, wake],
      ["?ToKeN= mixed case → 401", `a=1&ToKeN=${ROUTER_TEST_TOKEN}`, 401, wake],
      ["?%74oken= accepted → 200 (deprecation warning)", `%74oken=${ROUTER_TEST_TOKEN}`, 200, wake],
    ];
    it.each(cases)("%s", async (_title, query, status, body) => {
      const res = await request(h.app).post(`/hooks/wake?${query}`).send(body);
      expect(res.status).toBe(status);
      const encodedName = query.split("&").pop()!.split("=")[0]!;
      await h.host.waitFor(() => h.logText().some((l) => l.includes(`${encodedName}=[REDACTED]`)), 2000, "the redacted request line");
      for (const line of h.logText()) expect(line).not.toContain(ROUTER_TEST_TOKEN);
    });
  });

  it("the query-token warning is logged at most once a minute per client", async () => {
    let now = 1_000_000;
    h.close();
    h = createRouterApp({ clock: () => now });
    const warnings = () => h.host.logs.filter((l) => l.level === "warn" && /deprecated/.test(l.message)).length;
    for (let i = 0; i < 3; i++) {
      expect((await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake)).status).toBe(200);
    }
    await h.host.waitFor(() => warnings() >= 1, 2000, "first warning");
    expect(warnings()).toBe(1);
    now += 61_000;
    expect((await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake)).status).toBe(200);
    await h.host.waitFor(() => warnings() >= 2, 2000, "second warning");
    expect(warnings()).toBe(2);
  });

  it("hooks.allowQueryToken false → 400 query_token_not_allowed, even with the right token", async () => {
    h.close();
    h = createRouterApp({ config: { allowQueryToken: false } });
    const res = await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("query_token_not_allowed");
    expect(JSON.stringify(res.body)).not.toContain(ROUTER_TEST_TOKEN);
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("hooks.allowQueryToken false still accepts header tokens", async () => {
    h.close();
    h = createRouterApp({ config: { allowQueryToken: false } });
    expect((await request(h.app).post("/hooks/wake").set(bearer()).send(wake)).status).toBe(200);
  });
});

describe("auth-failure throttling", () => {
  let h: RouterApp;
  afterEach(() => h.close());

  const wrong = (app: RouterApp["app"]) => request(app).post("/hooks/wake").set(bearer("wrong-token-wrong-token")).send(wake);

  it("21 wrong tokens from one client within a minute → the 21st is 429 with Retry-After; the right token then → 200", async () => {
    h = createRouterApp();
    for (let i = 1; i <= 20; i++) expect((await wrong(h.app)).status).toBe(401);
    const limited = await wrong(h.app);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("too_many_requests");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    expect(Number(limited.headers["retry-after"])).toBeLessThanOrEqual(60);
    const right = await request(h.app).post("/hooks/wake").set(bearer()).send(wake);
    expect(right.status).toBe(200);
    // The right token cleared the count: the next failure is a plain 401 again.
    expect((await wrong(h.app)).status).toBe(401);
  });

  it("missing tokens count as failures too", async () => {
    h = createRouterApp({ config: { authThrottle: { maxFailures: 2, windowSeconds: 60 } } });
    expect((await request(h.app).post("/hooks/wake").send(wake)).status).toBe(401);
    expect((await request(h.app).post("/hooks/wake").send(wake)).status).toBe(401);
    expect((await request(h.app).post("/hooks/wake").send(wake)).status).toBe(429);
  });

  it("200 wrong-token GETs of a run status no longer all get 401: the 21st and later get 429", async () => {
    h = createRouterApp();
    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await request(h.app).get("/hooks/runs/abc").set(bearer("wrong-token-wrong-token"))).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(180).fill(429));
  });

  it("a client throttled on POST gets 429 on the run-status GET, with no 404-vs-401 oracle left", async () => {
    h = createRouterApp();
    for (let i = 0; i < 21; i++) await wrong(h.app);
    const res = await request(h.app).get("/hooks/runs/abc").set(bearer("wrong-token-wrong-token"));
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("too_many_requests");
    expect(Number(res.headers["retry-after"])).toBeGreaterThanOrEqual(1);
  });

  it("a 405 or a 404 answered before the token is compared does not count as a failure (SPEC §4.1)", async () => {
    h = createRouterApp({ config: { authThrottle: { maxFailures: 2, windowSeconds: 60 } } });
    for (let i = 0; i < 5; i++) {
      expect((await request(h.app).put("/hooks/wake").set(bearer("wrong-token-wrong-token")).send(wake)).status).toBe(405);
      expect((await request(h.app).post("/hooks").set(bearer("wrong-token-wrong-token")).send(wake)).status).toBe(404);
    }
    expect((await wrong(h.app)).status).toBe(401);
  });

  it("once throttled, wrong tokens on unknown mapped hooks answer 429 (a hook's 404 comes after the credential)", async () => {
    h = createRouterApp({ config: { authThrottle: { maxFailures: 2, windowSeconds: 60 } } });
    for (let i = 0; i < 2; i++) expect((await request(h.app).post("/hooks/nothing").set(bearer("wrong-token-wrong-token")).send(wake)).status).toBe(401);
    const limited = await request(h.app).post("/hooks/nothing").set(bearer("wrong-token-wrong-token")).send(wake);
    expect([limited.status, limited.body.code]).toEqual([429, "too_many_requests"]);
    expect((await request(h.app).post("/hooks/wake").send(wake)).status).toBe(429);
  });

  it("once throttled, a correct token on any route passes and clears the count", async () => {
    h = createRouterApp({ config: { authThrottle: { maxFailures: 2, windowSeconds: 60 } } });
    for (let i = 0; i < 3; i++) await wrong(h.app);
    expect((await wrong(h.app)).status).toBe(429);
    const status = await request(h.app).get("/hooks/runs/abc").set(bearer());
    expect(status.status).toBe(404);
    expect(status.body.code).toBe("not_found");
    expect((await wrong(h.app)).status).toBe(401);
  });

  it("a throttled client gets 429 for a refused query token as well (hooks.allowQueryToken false)", async () => {
    h = createRouterApp({ config: { allowQueryToken: false, authThrottle: { maxFailures: 2, windowSeconds: 60 } } });
    expect((await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake)).status).toBe(400);
    for (let i = 0; i < 3; i++) await wrong(h.app);
    const res = await request(h.app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}`).send(wake);
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("too_many_requests");
  });

  it("failures outside the window are forgotten", async () => {
    let now = 5_000_000;
    h = createRouterApp({ clock: () => now, config: { authThrottle: { maxFailures: 3, windowSeconds: 60 } } });
    for (let i = 0; i < 3; i++) expect((await wrong(h.app)).status).toBe(401);
    now += 60_001;
    expect((await wrong(h.app)).status).toBe(401);
  });

  it("Retry-After says when the oldest failure leaves the window", async () => {
    let now = 9_000_000;
    h = createRouterApp({ clock: () => now, config: { authThrottle: { maxFailures: 2, windowSeconds: 60 } } });
    await wrong(h.app);
    now += 10_000;
    await wrong(h.app);
    now += 5_000;
    const limited = await wrong(h.app);
    expect(limited.status).toBe(429);
    expect(limited.headers["retry-after"]).toBe("45");
  });
});
