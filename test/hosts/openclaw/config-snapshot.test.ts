import { OPENCLAW_MAX_STOP_GRACE_SECONDS, openClawSnapshot, SECTION_KEY } from "../../../src/hosts/openclaw/config-snapshot";
import { configKeyNamer } from "../../../src/host-contract/config-keys";

const renameProblemKeys = configKeyNamer(SECTION_KEY);
import { resolveConfig, resolveHooksSecrets } from "../../../src/config/resolve";

describe("openClawSnapshot", () => {
  it("puts plugins.entries.inbound-webhooks.config where the plugin reads it, with OpenClaw's defaults", () => {
    const snapshot = openClawSnapshot(
      { gateway: { port: 19001, bind: "loopback", auth: { mode: "token", token: "gateway-token-0123456789" } } },
      { token: "hook-token-0123456789" },
    );
    const config = resolveConfig(snapshot, { configDir: "/tmp" });
    expect(config.enabled).toBe(true);
    expect(config.path).toBe("/webhooks");
    expect(config.transformsDir).toBe("/tmp/webhooks/transforms");
    expect(snapshot.gateway).toEqual({ bind: "127.0.0.1", port: 19001, auth: { token: "gateway-token-0123456789" } });
  });

  it("?token= was accepted by default inside OpenClaw, whose own hooks refuse it: allowQueryToken defaults to false there", () => {
    const token = { token: "hook-token-0123456789" };
    expect(resolveConfig(openClawSnapshot({}, token), { configDir: "/tmp" }).allowQueryToken).toBe(false);
    expect(resolveConfig(openClawSnapshot({}, { ...token, allowQueryToken: true }), { configDir: "/tmp" }).allowQueryToken).toBe(true);
    // The embedded gateway keeps its default.
    expect(resolveConfig({ hooks: { enabled: true, ...token } }, { configDir: "/tmp" }).allowQueryToken).toBe(true);
  });

  it("keeps what the section sets over the defaults (enabled: false switches the routes off)", () => {
    const config = resolveConfig(openClawSnapshot({}, { enabled: false, path: "/in" }), { configDir: "/tmp" });
    expect(config.enabled).toBe(false);
    expect(config.path).toBe("/in");
  });

  it("reads OpenClaw's agents.defaults.timeoutSeconds as the default run bound", () => {
    const config = resolveConfig(openClawSnapshot({ agents: { defaults: { timeoutSeconds: 90 } } }, { token: "hook-token-0123456789" }), { configDir: "/tmp" });
    expect(config.defaultTimeoutSeconds).toBe(90);
  });

  it("a hook token equal to OpenClaw's gateway token from OPENCLAW_GATEWAY_TOKEN or an env SecretRef was accepted: the start fails naming the key", () => {
    const same = "shared-token-0123456789abcdef";
    const start = (openclaw: Record<string, unknown>, env: NodeJS.ProcessEnv) => () =>
      resolveHooksSecrets(resolveConfig(openClawSnapshot(openclaw, { token: same }), { configDir: "/tmp" }), { configDir: "/tmp", env });
    const rule = "must differ from gateway.auth.token";
    expect(start({}, { OPENCLAW_GATEWAY_TOKEN: same })).toThrow(rule);
    expect(start({ gateway: { auth: { token: { source: "env", provider: "default", id: "GW_TOKEN" } } } }, { GW_TOKEN: same })).toThrow(rule);
    expect(start({ gateway: { auth: { token: same } } }, {})).toThrow(rule);
    expect(start({}, {})).not.toThrow();
    expect(start({ gateway: { auth: { token: { source: "exec", provider: "vault", id: "gw" } } } }, {})).not.toThrow();
  });

  it("a stop with runs in flight fits in the 5 s OpenClaw gives a plugin service when a config reload restarts it (runs.shutdownGraceSeconds at most 2)", () => {
    const grace = (section: Record<string, unknown>) =>
      resolveConfig(openClawSnapshot({}, { token: "hook-token-0123456789", ...section }), { configDir: "/tmp" }).runs.shutdownGraceSeconds;
    expect(grace({})).toBe(OPENCLAW_MAX_STOP_GRACE_SECONDS);
    expect(grace({ runs: { shutdownGraceSeconds: 600, maxConcurrent: 2 } })).toBe(OPENCLAW_MAX_STOP_GRACE_SECONDS);
    expect(grace({ runs: { shutdownGraceSeconds: 0.5 } })).toBe(0.5);
    expect(OPENCLAW_MAX_STOP_GRACE_SECONDS + 1).toBeLessThan(5);
  });
});

describe("the config problems of the snapshot, named by the section OpenClaw gives the plugin (configSection)", () => {
  it("names OpenClaw's key for a missing token (the error a start without one fails with)", () => {
    let message = "";
    try {
      resolveHooksSecrets(resolveConfig(openClawSnapshot({}, {}), { configDir: "/tmp" }), { configDir: "/tmp" });
    } catch (e) {
      message = renameProblemKeys((e as Error).message);
    }
    expect(message).toBe(`${SECTION_KEY}.token is required when ${SECTION_KEY}.enabled is true`);
  });

  it("renames every problem line of a config error and leaves OpenClaw's own keys alone", () => {
    let message = "";
    try {
      resolveConfig(openClawSnapshot({ agents: { defaults: { timeoutSeconds: -1 } } }, { maxBodyBytes: 0, mappings: [{ action: "nap" }] }), {
        configDir: "/tmp",
      });
    } catch (e) {
      message = renameProblemKeys((e as Error).message);
    }
    const lines = message.split("\n");
    expect(lines.some((l) => l.startsWith(`${SECTION_KEY}.maxBodyBytes `))).toBe(true);
    expect(lines.some((l) => l.startsWith(`${SECTION_KEY}.mappings[0].action `))).toBe(true);
    expect(lines.some((l) => l.startsWith("agents.defaults.timeoutSeconds "))).toBe(true);
    expect(message).not.toMatch(/(^|\s)hooks\./m);
  });
});
