/**
 * The stages between auth and body: shutting down (503 with Retry-After) and the
 * rate-limiter slot (called only after successful auth, before the body is read).
 */
import request from "supertest";
import { createRatePolicy, type RatePolicy } from "../../src/intake/rate-policy";
import { resolvedConfig } from "../helpers/resolved-config";
import { bearer, createRouterApp, type RouterApp } from "../helpers/router-app";

describe("shutting down", () => {
  let h: RouterApp;
  let stopping = false;
  beforeEach(() => {
    stopping = false;
    h = createRouterApp({ isShuttingDown: () => stopping });
  });
  afterEach(() => h.close());

  it("authenticated requests get 503 shutting_down with Retry-After while the gateway stops", async () => {
    stopping = true;
    const res = await request(h.app).post("/hooks/agent").set(bearer()).send({ message: "hi" });
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ok: false, code: "shutting_down", error: "The gateway is shutting down; retry later." });
    expect(res.headers["retry-after"]).toBe("5");
    expect(h.dispatcher.agents).toHaveLength(0);
  });

  it("auth still comes first (401 without a token)", async () => {
    stopping = true;
    expect((await request(h.app).post("/hooks/agent").send({ message: "hi" })).status).toBe(401);
  });

  it("before shutdown the same request is accepted", async () => {
    expect((await request(h.app).post("/hooks/agent").set(bearer()).send({ message: "hi" })).status).toBe(202);
  });
});

describe("rate-limiter slot", () => {
  let h: RouterApp;
  afterEach(() => h.close());

  it("is consulted only after successful auth, with the hook's one name and the client", async () => {
    const seen: Array<{ hook?: string; client: string }> = [];
    const ratePolicy: RatePolicy = {
      check(hook, client) {
        seen.push({ hook, client });
        return { ok: true, headers: {} };
      },
    };
    h = createRouterApp({ ratePolicy });
    expect((await request(h.app).post("/hooks/wake").send({ text: "x" })).status).toBe(401);
    expect((await request(h.app).get("/hooks/wake").set(bearer())).status).toBe(405);
    expect(seen).toEqual([]);
    expect((await request(h.app).post("/hooks//wake/").set(bearer()).send({ text: "x" })).status).toBe(200);
    expect(seen).toEqual([{ hook: "wake", client: expect.any(String) }]);
  });

  it("with the reliability rate limiter: over the limit → 429 too_many_requests with X-Request-Id and a rejection event", async () => {
    const config = resolvedConfig({ rateLimit: { enabled: true, max: 2, windowSeconds: 60 } });
    h = createRouterApp({ config: { rateLimit: config.rateLimit }, ratePolicy: createRatePolicy(config) });
    for (let i = 0; i < 2; i++) expect((await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "x" })).status).toBe(200);
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(429);
    expect(res.body.code).toBe("too_many_requests");
    expect(res.headers["retry-after"]).toBeTruthy();
    expect(res.headers["x-request-id"]).toBeTruthy();
    expect(h.dispatcher.wakes).toHaveLength(2);
    expect(h.rejected.at(-1)).toMatchObject({ hook: "wake", status: 429, code: "too_many_requests" });
  });
});
