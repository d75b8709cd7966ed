/**
 * `gateway.logFormat` on the real gateway process, whose stderr is a pipe (not a
 * terminal): json lines by default — each one parses and none carries a token,
 * even for a request that sent the hook token in the query — and `pretty` when
 * configured, with the message column aligned.
 */
import { gatewayPerTest, GATEWAY_TOKEN, HOOK_TOKEN, hooksConfig, PLUGIN_NOT_BUILT } from "./gateway-setup";

beforeAll(() => {
  if (PLUGIN_NOT_BUILT) throw new Error("dist/ is missing: run `npm run build` before the e2e tests");
});

/** Hook traffic whose log lines could leak a token: a query token, a wrong bearer token, the operator token on /metrics. */
async function traffic(baseUrl: string): Promise<void> {
  const query = await fetch(`${baseUrl}/hooks/wake?token=${HOOK_TOKEN}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"text":"via query"}',
  });
  expect(query.status).toBe(200);
  const wrong = await fetch(`${baseUrl}/hooks/wake`, {
    method: "POST",
    headers: { authorization: `Bearer ${HOOK_TOKEN}-wrong`, "content-type": "application/json" },
    body: '{"text":"x"}',
  });
  expect(wrong.status).toBe(401);
  expect((await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } })).status).toBe(200);
}

describe("gateway e2e: gateway.logFormat", () => {
  const gateway = gatewayPerTest();

  it("not on a terminal, the default is json: every stderr line is one JSON object and no line carries a token", async () => {
    const gw = await gateway.start({ config: hooksConfig({ gateway: { logLevel: "debug" } }) });
    await traffic(gw.baseUrl);
    await gw.stop();
    const lines = gw.stderr().trim().split("\n");
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(entries.find((e) => e.message === "gateway started")).toMatchObject({ level: "info", label: "gateway" });
    expect(entries.find((e) => e.message === "hook request rejected")).toMatchObject({
      level: "warn",
      label: "inbound-webhooks",
      module: "http",
      status: 401,
      code: "unauthorized",
    });
    expect(entries.find((e) => e.message === "hook request accepted")).toMatchObject({ label: "inbound-webhooks", module: "http", status: 200 });
    for (const line of lines) {
      expect(line).not.toContain(HOOK_TOKEN);
      expect(line).not.toContain(GATEWAY_TOKEN);
    }
  });

  it('logFormat "pretty": one aligned line per entry (no colour on a pipe), still without tokens', async () => {
    const gw = await gateway.start({ config: hooksConfig({ gateway: { logFormat: "pretty" } }) });
    await traffic(gw.baseUrl);
    await gw.stop();
    const lines = gw.stderr().trim().split("\n");
    for (const line of lines) {
      expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (DEBUG|INFO |WARN |ERROR) \[[a-z-]+(\/[a-z-]+)?\] +\S/);
      expect(line).not.toContain(HOOK_TOKEN);
      expect(line).not.toContain("\x1b[");
    }
    const messageColumn = (l: string) => l.search(/\] +\S/) + /\] +/.exec(l)![0].length;
    expect(new Set(lines.map(messageColumn)).size).toBe(1);
    expect(lines.some((l) => / WARN  \[inbound-webhooks\/http\] +hook request rejected /.test(l))).toBe(true);
  });

  it("a logFormat other than pretty or json stops the start, naming the key", async () => {
    await expect(gateway.start({ config: hooksConfig({ gateway: { logFormat: "xml" } }) })).rejects.toThrow(/gateway\.logFormat must be one of/);
  });
});
