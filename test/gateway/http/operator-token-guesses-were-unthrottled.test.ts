/**
 * Regression (issue 22 item 5): the dashboard's login throttle was bypassed.
 * A wrong `Authorization: Bearer` on `/ui/*` was never counted (2,000 guesses
 * in 10 s, all 401; then the right token as Bearer → 200 from an address the
 * login form answered 429); `/metrics` and `/api/*` took wrong tokens
 * unthrottled; and failed logins from 10,500 other addresses made a blocked
 * address forgotten. Now one operator throttle counts every carrier and route,
 * and a blocked client is never dropped.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { OPERATOR_TOKEN, uiApp } from "../../helpers/ui-app";

const WRONG = "Bearer wrong-operator-token-000000";
const RIGHT = `Bearer ${OPERATOR_TOKEN}`;

let server: http.Server | undefined;
afterEach(async () => {
  if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
  server = undefined;
});

/** The gateway app (dashboard, /api, /metrics, one throttle) on a real loopback listener; X-Forwarded-For names the client. */
async function start(
  opts: { throttleMaxClients?: number } = {},
): Promise<
  (path: string, init?: { authorization?: string; client?: string; form?: string }) => Promise<{ status: number; retryAfter: string | null; text: string }>
> {
  const { app } = uiApp({ trustProxy: ["loopback"], ...opts });
  server = http.createServer(app);
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return async (path, init = {}) => {
    const headers: Record<string, string> = { "x-forwarded-for": init.client ?? "203.0.113.7" };
    if (init.authorization) headers.authorization = init.authorization;
    if (init.form !== undefined) Object.assign(headers, { "content-type": "application/x-www-form-urlencoded", origin: base });
    const res = await fetch(`${base}${path}`, { method: init.form !== undefined ? "POST" : "GET", headers, body: init.form, redirect: "manual" });
    return { status: res.status, retryAfter: res.headers.get("retry-after"), text: await res.text() };
  };
}

describe("operator token guesses are throttled on every carrier and route", () => {
  it("wrong Bearer tokens on /ui were never counted: after 5 the right token as Bearer gets 429, and so does the login form", async () => {
    const call = await start();
    for (let i = 0; i < 5; i++) expect((await call("/ui/deliveries", { authorization: WRONG })).status).toBe(401);
    const right = await call("/ui/deliveries", { authorization: RIGHT });
    expect([right.status, right.retryAfter]).toEqual([429, "900"]);
    expect(right.text).toContain("Too many wrong operator tokens from this address");
    const api = await call("/ui/api/events", { authorization: RIGHT });
    expect([api.status, JSON.parse(api.text).code]).toEqual([429, "too_many_requests"]);
    expect((await call("/ui/login", { form: `token=${OPERATOR_TOKEN}` })).status).toBe(429);
    // Another address is not affected.
    expect((await call("/ui/deliveries", { authorization: RIGHT, client: "198.51.100.9" })).status).toBe(200);
  });

  it("/metrics and /api/* took wrong tokens unthrottled: they count, and a client blocked there is blocked on /ui too", async () => {
    const call = await start();
    for (let i = 0; i < 3; i++) expect((await call("/metrics", { authorization: WRONG })).status).toBe(401);
    for (let i = 0; i < 2; i++) expect((await call("/api/status", { authorization: WRONG })).status).toBe(401);
    for (const path of ["/metrics", "/api/status", "/ui/deliveries"]) {
      const res = await call(path, { authorization: RIGHT });
      expect([path, res.status, res.retryAfter]).toEqual([path, 429, "900"]);
    }
    expect(JSON.parse((await call("/api/status", { authorization: RIGHT })).text)).toEqual({
      ok: false,
      code: "too_many_requests",
      error: "Too many wrong operator tokens from this address; try again in 900 seconds.",
    });
  });

  it("failed logins from 10,500 other addresses made a blocked address forgotten: it stays blocked", async () => {
    // The attack overflowed the default capacity of 10,000 counting clients; here the capacity
    // is 500 and the flood 1,050 addresses (the same overflow, twice over, in a tenth of the requests).
    const call = await start({ throttleMaxClients: 500 });
    for (let i = 0; i < 5; i++) expect((await call("/ui/login", { form: `token=wrong-${i}` })).status).toBe(401);
    expect((await call("/ui/login", { form: `token=${OPERATOR_TOKEN}` })).status).toBe(429);
    const others = Array.from({ length: 1_050 }, (_, i) => `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
    for (let at = 0; at < others.length; at += 50) {
      const statuses = await Promise.all(others.slice(at, at + 50).map((client) => call("/ui/login", { form: "token=guess", client }).then((r) => r.status)));
      expect(new Set(statuses)).toEqual(new Set([401]));
    }
    const after = await call("/ui/login", { form: `token=${OPERATOR_TOKEN}` });
    expect(after.status).toBe(429);
    expect((await call("/metrics", { authorization: RIGHT })).status).toBe(429);
  }, 60_000);
});
