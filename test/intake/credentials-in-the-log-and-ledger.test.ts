/**
 * Regression (issue 22 item 6): secrets in the log and the ledger. The "hook
 * request rejected" line (warn, on by default) logged the full URL with only
 * `token` hidden — `api_key`, `access_token`, `client_secret`, `password`,
 * `apikey`, `secret` appeared verbatim; the configured Meta `hub.verify_token`
 * was logged when the handshake got the wrong `hub.mode`; and the ledger stored
 * `x-auth-key`, `x-auth`, `x-hook-key`, `x-access-key`, `x-client-cert`, Basic
 * credentials in any header, `?auth=` and `?pwd=` in clear. One redaction rule
 * now serves the log and the ledger (and through it the API, CLI and dashboard),
 * while `Idempotency-Key` and `?author=` stay visible.
 */
import request from "supertest";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const META_TOKEN = "meta-verify-token-5b1f0c9e7d";
const VERIFY_SECRET = "gitlab-shared-secret-0a1b2c3d4e";
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [
    { id: "crm", match: { path: "crm" }, action: "wake", textTemplate: "deal {{ payload.deal }}" },
    { id: "meta", match: { path: "whatsapp" }, handshake: { meta: { verifyToken: META_TOKEN } }, messageTemplate: "wa {{ payload.entry }}" },
    {
      id: "gitlab",
      match: { path: "gitlab" },
      action: "wake",
      textTemplate: "gl",
      verify: { scheme: "token-header", header: "x-gitlab-token", secret: VERIFY_SECRET },
    },
  ],
};
const CLEAR = ["k-api", "k-access", "k-client", "k-password", "k-apikey", "k-secret", "k-auth", "k-pwd"];
const QUERY = "api_key=k-api&access_token=k-access&client_secret=k-client&password=k-password&apikey=k-apikey&secret=k-secret&auth=k-auth&pwd=k-pwd&author=ada";

let plugin: PluginApp;
afterEach(() => plugin?.close());

const logText = () => JSON.stringify(plugin.host.logs);

describe("one redaction rule for the log and the ledger", () => {
  it("the 'hook request rejected' line logged api_key, access_token, client_secret, password, apikey, secret and the other credential parameters verbatim", async () => {
    plugin = await startPluginApp({ hooks: HOOKS });
    const res = await request(plugin.app).post(`/hooks/wake?${QUERY}`).set("Authorization", "Bearer wrong-token-wrong-token-0000").send({ text: "x" });
    expect(res.status).toBe(401);
    const line = plugin.host.logs.find((l) => l.message === "hook request rejected");
    expect(line?.meta?.url).toBe(
      "/hooks/wake?api_key=[REDACTED]&access_token=[REDACTED]&client_secret=[REDACTED]&password=[REDACTED]&apikey=[REDACTED]&secret=[REDACTED]&auth=[REDACTED]&pwd=[REDACTED]&author=ada",
    );
    for (const value of CLEAR) expect(logText()).not.toContain(value);
  });

  it("the configured Meta hub.verify_token was logged when the handshake got the wrong hub.mode", async () => {
    plugin = await startPluginApp({ hooks: HOOKS });
    const res = await request(plugin.app).get(`/hooks/whatsapp?hub.mode=unsubscribe&hub.verify_token=${META_TOKEN}&hub.challenge=123`);
    expect(res.status).toBe(403);
    expect(plugin.host.logs.some((l) => l.message === "hook request rejected")).toBe(true);
    // Nor anywhere else a sender puts it, nor the verify secret or the hook token.
    await request(plugin.app)
      .post(`/hooks/wake?note=${META_TOKEN}-${VERIFY_SECRET}-${TEST_TOKEN}`)
      .set("Authorization", "Bearer wrong-token-wrong-token-0000")
      .send({});
    expect(logText()).not.toContain(META_TOKEN);
    expect(logText()).not.toContain(VERIFY_SECRET);
    expect(logText()).not.toContain(TEST_TOKEN);
  });

  it("the ledger stored x-auth-key, x-auth, x-hook-key, x-access-key, x-client-cert, Basic credentials in any header, ?auth= and ?pwd= in clear", async () => {
    plugin = await startPluginApp({ hooks: HOOKS });
    const sent = await request(plugin.app)
      .post("/hooks/crm?auth=k-auth&pwd=k-pwd&author=ada")
      .set(AUTH)
      .set({
        "X-Auth-Key": "k-auth-key",
        "X-Auth": "k-x-auth",
        "X-Hook-Key": "k-hook-key",
        "X-Access-Key": "k-access-key",
        "X-Client-Cert": "k-client-cert",
        "X-Forwarded-Authorization": "Basic dXNlcjpzM2NyZXQ=",
        "X-Upstream": "Basic YWRhOmxvdmVsYWNl",
        "X-Note": `copied ${VERIFY_SECRET}`,
        "Idempotency-Key": "order-7",
      })
      .send({ deal: "42" });
    expect(sent.status).toBe(200);
    const deliveries = async () => (await request(plugin.app).get("/hooks/deliveries?hook=crm").set(AUTH)).body.deliveries as Array<{ id: string }>;
    await until(async () => (await deliveries()).length === 1, "the crm delivery is listed");
    const [row] = await deliveries();
    const detail = (await request(plugin.app).get(`/hooks/deliveries/${row!.id}`).set(AUTH)).body.delivery as { url: string; headers: Record<string, string> };
    expect(detail.url).toBe("/hooks/crm?auth=[REDACTED]&pwd=[REDACTED]&author=ada");
    expect(detail.headers).toMatchObject({
      "x-auth-key": "[REDACTED]",
      "x-auth": "[REDACTED]",
      "x-hook-key": "[REDACTED]",
      "x-access-key": "[REDACTED]",
      "x-client-cert": "[REDACTED]",
      "x-forwarded-authorization": "[REDACTED]",
      "x-upstream": "Basic [REDACTED]",
      "x-note": "copied [REDACTED]",
      "idempotency-key": "order-7",
      authorization: "[REDACTED]",
    });
  });
});
