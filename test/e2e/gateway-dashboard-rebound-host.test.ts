/**
 * Regression on the real gateway process (DNS rebinding): listening on loopback, it
 * answered the dashboard and `/api` for any Host, so a web page whose name was rebound
 * to 127.0.0.1 could post wrong operator tokens to the login form until the operator's
 * own address was locked out. Now those requests get 403 `host_not_allowed` (uncounted)
 * while hooks and `/healthz` still answer a tunnel's public Host; `gateway.ui.allowedHosts`
 * lets a reverse proxy's name in, and a bad entry stops the start naming it.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { makeGatewayDir, runGatewayCli } from "../helpers/gateway-process";
import { GATEWAY_TOKEN, gatewayPerTest, HOOK_TOKEN, hooksConfig, PLUGIN_NOT_BUILT } from "./gateway-setup";

beforeAll(() => {
  if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
});

const REBOUND = "rebound.attacker.test:18789";

/** One request with the given Host header (fetch cannot set Host); resolves with status, JSON code (if any) and body. */
function send(
  baseUrl: string,
  p: string,
  init: { host: string; method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; code?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${baseUrl}${p}`, { method: init.method ?? "GET", headers: { host: init.host, ...init.headers } }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        const code = /json/.test(String(res.headers["content-type"])) ? (JSON.parse(text) as { code?: string }).code : /data-code="([a-z_]+)"/.exec(text)?.[1];
        resolve({ status: res.statusCode ?? 0, ...(code ? { code } : {}), text });
      });
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

/** The login form as the dashboard's own page at `host` posts it. */
const login = (baseUrl: string, host: string, token: string) =>
  send(baseUrl, "/ui/login", {
    host,
    method: "POST",
    headers: { origin: `http://${host}`, "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" },
    body: `token=${encodeURIComponent(token)}`,
  });

describe("gateway e2e: a page rebound to 127.0.0.1 and the dashboard", () => {
  const gateway = gatewayPerTest();

  it("a rebound Host gets 403 host_not_allowed on /ui and /api, its 8 wrong logins lock nobody out, and hooks and /healthz still answer it", async () => {
    const gw = await gateway.start({ config: hooksConfig() });
    const page = await send(gw.baseUrl, "/ui/login", { host: REBOUND });
    expect([page.status, page.code]).toEqual([403, "host_not_allowed"]);
    expect(page.text).toContain("gateway.ui.allowedHosts");
    const api = await send(gw.baseUrl, "/api/status", { host: REBOUND, headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
    expect([api.status, api.code]).toEqual([403, "host_not_allowed"]);

    for (let i = 0; i < 8; i++) expect((await login(gw.baseUrl, REBOUND, `wrong-token-${i}`)).status).toBe(403);
    const own = new URL(gw.baseUrl).host;
    expect((await login(gw.baseUrl, own, GATEWAY_TOKEN)).status).toBe(303);
    expect((await send(gw.baseUrl, "/api/status", { host: `localhost:${gw.port}`, headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).status).toBe(200);

    const tunnel = "abc-def.trycloudflare.com";
    const wake = await send(gw.baseUrl, "/hooks/wake", {
      host: tunnel,
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" },
      body: '{"text":"through a tunnel"}',
    });
    expect(wake.status).toBe(200);
    expect((await send(gw.baseUrl, "/healthz", { host: tunnel })).status).toBe(200);
  });

  it("gateway.ui.allowedHosts lets a reverse proxy's name in, and only that one", async () => {
    const gw = await gateway.start({ config: hooksConfig({ gateway: { auth: { token: GATEWAY_TOKEN }, ui: { allowedHosts: ["dash.example.com"] } } }) });
    expect((await login(gw.baseUrl, "dash.example.com", GATEWAY_TOKEN)).status).toBe(303);
    expect((await send(gw.baseUrl, "/ui/login", { host: "dash.example.com:443" })).status).toBe(200);
    expect((await send(gw.baseUrl, "/ui/login", { host: REBOUND })).code).toBe("host_not_allowed");
  });

  it("an entry that is not a host name stops the start, naming gateway.ui.allowedHosts[i]", async () => {
    const file = path.join(makeGatewayDir("gw-allowed-hosts-"), "gateway.config.json");
    fs.writeFileSync(
      file,
      JSON.stringify(hooksConfig({ gateway: { auth: { token: GATEWAY_TOKEN }, ui: { allowedHosts: ["dash.example.com", "https://dash.example.com:8443"] } } })),
    );
    const r = await runGatewayCli(["start", "--config", file, "--port", "0"]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toContain("listening:");
    expect(r.stderr.trim().split("\n")).toEqual([
      `gateway: invalid config ${file}: gateway.ui.allowedHosts[1] must be a host name or an IP address, without scheme, port, path or wildcard (e.g. "dashboard.example.com")`,
    ]);
  });
});
