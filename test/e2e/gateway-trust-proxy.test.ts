/**
 * `gateway.trustProxy` on the real gateway process: behind a trusted proxy the
 * auth throttle counts the forwarded client (X-Forwarded-For), so one abusive
 * client behind the proxy is throttled while its neighbours are not; without it
 * forwarded headers are ignored and every client behind the proxy shares the
 * proxy's bucket (the behaviour before the key existed). A bad entry stops the
 * start, naming it.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, runGatewayCli } from "../helpers/gateway-process";
import { gatewayPerTest, HOOK_TOKEN, hooksConfig, PLUGIN_NOT_BUILT } from "./gateway-setup";

const WRONG = "Bearer wrong-token-wrong-token-0000";

beforeAll(() => {
  if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
});

async function wrongTokenFrom(baseUrl: string, forwardedFor: string): Promise<{ status: number; code: string }> {
  const res = await fetch(`${baseUrl}/hooks/wake`, {
    method: "POST",
    headers: { authorization: WRONG, "content-type": "application/json", "x-forwarded-for": forwardedFor },
    body: '{"text":"x"}',
  });
  return { status: res.status, code: ((await res.json()) as { code: string }).code };
}

describe("gateway e2e: gateway.trustProxy", () => {
  const gateway = gatewayPerTest();

  it('with trustProxy ["127.0.0.1"], 21 failures from X-Forwarded-For 203.0.113.7 throttle that client while 203.0.113.8 still gets 401', async () => {
    const gw = await gateway.start({ config: hooksConfig({ gateway: { trustProxy: ["127.0.0.1"] } }) });
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await wrongTokenFrom(gw.baseUrl, "203.0.113.7")).status);
    expect(statuses).toEqual([...Array(20).fill(401), 429]);
    expect(await wrongTokenFrom(gw.baseUrl, "203.0.113.7")).toEqual({ status: 429, code: "too_many_requests" });
    expect(await wrongTokenFrom(gw.baseUrl, "203.0.113.8")).toEqual({ status: 401, code: "unauthorized" });
  });

  it("with trustProxy, the rate limiter counts the forwarded client too: 203.0.113.7 over hooks.rateLimit gets 429 while 203.0.113.8 is accepted", async () => {
    const gw = await gateway.start({ config: hooksConfig({ gateway: { trustProxy: ["127.0.0.1"] }, hooks: { rateLimit: { max: 3, windowSeconds: 600 } } }) });
    const wake = async (forwardedFor: string) =>
      (
        await fetch(`${gw.baseUrl}/hooks/wake`, {
          method: "POST",
          headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", "x-forwarded-for": forwardedFor },
          body: '{"text":"x"}',
        })
      ).status;
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push(await wake("203.0.113.7"));
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect(await wake("203.0.113.8")).toBe(200);
  });

  it("without trustProxy, X-Forwarded-For is ignored: after 21 failures claiming 203.0.113.7, a request claiming 203.0.113.8 is throttled too (one bucket)", async () => {
    const gw = await gateway.start({ config: hooksConfig() });
    for (let i = 0; i < 21; i++) await wrongTokenFrom(gw.baseUrl, "203.0.113.7");
    expect(await wrongTokenFrom(gw.baseUrl, "203.0.113.8")).toEqual({ status: 429, code: "too_many_requests" });
  });

  it('a trusted proxy that is not the peer is not believed: trustProxy ["10.0.0.0/8"] leaves loopback clients in one bucket', async () => {
    const gw = await gateway.start({ config: hooksConfig({ gateway: { trustProxy: ["10.0.0.0/8"] } }) });
    for (let i = 0; i < 21; i++) await wrongTokenFrom(gw.baseUrl, "203.0.113.7");
    expect(await wrongTokenFrom(gw.baseUrl, "203.0.113.8")).toEqual({ status: 429, code: "too_many_requests" });
  });

  it("an entry that is not an address, a CIDR or a named range stops the start, naming gateway.trustProxy[i]", async () => {
    const file = path.join(makeGatewayDir("gw-trustproxy-"), "gateway.config.json");
    fs.writeFileSync(file, JSON.stringify(hooksConfig({ gateway: { trustProxy: ["127.0.0.1", "10.0.0.0/33", "proxy.example"] } })));
    const r = await runGatewayCli(["start", "--config", file, "--port", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("listening:");
    const rule = "must be an IP address, a CIDR range (e.g. 10.0.0.0/8 or fd00::/8) or one of loopback, linklocal, uniquelocal";
    expect(r.stderr.trim().split("\n")).toEqual([
      `gateway: invalid config ${file}: gateway.trustProxy[1] ${rule}`,
      `gateway: invalid config ${file}: gateway.trustProxy[2] ${rule}`,
    ]);
  });
});
