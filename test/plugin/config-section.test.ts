/**
 * A host that keeps the plugin's section elsewhere than `hooks` (host API 1.4 `configSection`;
 * inside OpenClaw `hooks.*` is OpenClaw's own section): every sentence of the plugin names its
 * keys there — the HTTP answer, the answer the ledger keeps, log lines and config problems at
 * start — and the embedded gateway (no `configSection`) keeps `hooks.*`.
 */
import request from "supertest";
import { activate } from "../../src/plugin/index";
import { createFakeHost } from "../helpers/fake-host";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { until } from "../helpers/until";

const SECTION = "plugins.entries.inbound-webhooks.config";
const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
/** A key of the section as the embedded gateway names it. */
const HOOKS_KEY = /(^|[^\w./-])hooks[.[]/m;

describe("the plugin's sentences on a host whose section is not `hooks`", () => {
  let plugin: PluginApp | undefined;
  afterEach(async () => {
    await plugin?.close();
    plugin = undefined;
  });

  it("a 413 named hooks.maxBodyBytes, in the answer and in the ledger: both name the host's key", async () => {
    plugin = await startPluginApp({ configSection: SECTION, hooks: { maxBodyBytes: 100 } });
    const res = await request(plugin.app)
      .post("/hooks/wake")
      .set(AUTH)
      .send({ text: "x".repeat(200) });
    expect(res.body).toEqual({ ok: false, code: "payload_too_large", error: `The request body is larger than ${SECTION}.maxBodyBytes allows (100 bytes).` });
    const app = plugin.app;
    let listed: Array<{ id: string }> = [];
    // The ledger writes its rows in batches: poll (bounded) until the refusal is there.
    await until(
      async () => (listed = (await request(app).get("/hooks/deliveries?hook=wake").set(AUTH)).body.deliveries).length === 1,
      "the refusal in the ledger",
      { timeoutMs: 5000 },
    );
    const stored = await request(app).get(`/hooks/deliveries/${listed[0]!.id}`).set(AUTH);
    expect(stored.body.delivery.response).toEqual(res.body);
  });

  it("the embedded gateway (no configSection) still names hooks.maxBodyBytes", async () => {
    plugin = await startPluginApp({ hooks: { maxBodyBytes: 100 } });
    const res = await request(plugin.app)
      .post("/hooks/wake")
      .set(AUTH)
      .send({ text: "x".repeat(200) });
    expect(res.body.error).toBe("The request body is larger than hooks.maxBodyBytes allows (100 bytes).");
  });

  it("a log line named hooks.enabled: it names the host's key", async () => {
    const host = createFakeHost({ configSection: SECTION, config: { hooks: { enabled: false } } });
    activate(host.api);
    await host.startServices();
    expect(host.logs.map((l) => l.message)).toContain(`hooks disabled (${SECTION}.enabled is not true); no HTTP listener registered`);
  });

  it("config problems at activation and at the service's start name the host's keys, the error still a ConfigError", async () => {
    const bad = createFakeHost({ configSection: SECTION, config: { hooks: { enabled: true, maxBodyBytes: 0, presets: ["gihtub"] } } });
    let error: Error | undefined;
    try {
      activate(bad.api);
    } catch (e) {
      error = e as Error;
    }
    expect(error?.name).toBe("ConfigError");
    expect(error?.message).toContain(`${SECTION}.token is required when ${SECTION}.enabled is true`);
    expect(error?.message).toContain(`${SECTION}.presets[0] names an unknown preset "gihtub"`);
    expect(error?.message).not.toMatch(HOOKS_KEY);
    delete process.env.IW_SECTION_TEST_TOKEN_UNSET;
    const unset = createFakeHost({ configSection: SECTION, config: { hooks: { enabled: true, token: { env: "IW_SECTION_TEST_TOKEN_UNSET" } } } });
    activate(unset.api);
    await expect(unset.startServices()).rejects.toThrow(new RegExp(`^${SECTION.replace(/\./g, "\\.")}\\.token `));
  });
});
