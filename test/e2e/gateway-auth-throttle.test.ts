/**
 * Regression on the real gateway: 200 wrong-token `GET /hooks/runs/<id>` all got
 * 401, never 429, so a client throttled on POST could keep testing tokens through
 * GET (404 vs 401). Failures now count on every route, and a throttled client gets
 * 429 wherever a credential is compared until it sends the right token. A 405 or a
 * path-level 404 is answered before any credential is compared (SPEC §4.1), so it
 * reveals nothing about the token and stays 405/404.
 */
import { gatewayPerTest, hooksConfig, HOOK_TOKEN } from "./gateway-setup";

const WRONG = "Bearer wrong-token-wrong-token-0000";

describe("gateway e2e: the auth throttle covers every route and method", () => {
  const gateway = gatewayPerTest();

  it("200 wrong-token run-status GETs: 20 × 401 then 180 × 429; then 429 wherever a token is compared until the right token", async () => {
    const gw = await gateway.start({ config: hooksConfig() });
    const call = async (method: string, sub: string, authorization = WRONG, body?: string) => {
      const res = await fetch(`${gw.baseUrl}/hooks${sub}`, { method, headers: { authorization, "content-type": "application/json" }, body });
      const text = await res.text();
      return { status: res.status, code: text ? (JSON.parse(text) as { code?: string }).code : undefined, retryAfter: res.headers.get("retry-after") };
    };

    const statuses: number[] = [];
    for (let i = 0; i < 200; i++) statuses.push((await call("GET", "/runs/0f0e0d0c-0000-4000-8000-000000000000")).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(401));
    expect(statuses.slice(20)).toEqual(Array(180).fill(429));

    for (const [method, sub] of [
      ["POST", "/wake"],
      ["GET", "/runs/x"],
      ["GET", "/deliveries"],
      ["POST", "/no-such-hook"],
    ] as const) {
      const r = await call(method, sub, WRONG, method === "GET" ? undefined : '{"text":"x"}');
      expect([method, sub, r.status, r.code]).toEqual([method, sub, 429, "too_many_requests"]);
      expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Answered before any credential is compared: no token oracle, and not counted.
    expect((await call("PUT", "/wake", WRONG, '{"text":"x"}')).status).toBe(405);
    expect((await call("POST", "", WRONG, '{"text":"x"}')).status).toBe(404);

    expect((await call("POST", "/wake", `Bearer ${HOOK_TOKEN}`, '{"text":"it is me"}')).status).toBe(200);
    expect((await call("GET", "/runs/x")).status).toBe(401);
  });
});
