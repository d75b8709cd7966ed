/** The checked-in gateway.config.example.json is valid for the gateway and the hooks plugin's schema. */
import path from "node:path";
import { loadGatewayConfig } from "../../src/gateway/config/load-config";
import { readManifest } from "../../src/gateway/plugins/manifest";
import { checkPluginConfig } from "../../src/gateway/plugins/plugin-config";
import { PACKAGE_ROOT } from "../../src/gateway/paths";

describe("gateway.config.example.json", () => {
  it("loads, and its hooks section passes the plugin's configSchema", () => {
    const file = path.join(PACKAGE_ROOT, "gateway.config.example.json");
    const { config } = loadGatewayConfig({ configFlag: file, env: { HOOK_TOKEN: "x".repeat(32) } });
    expect(config.bind).toBe("127.0.0.1");
    expect(config.port).toBe(18789);
    expect(config.stateDir).toBe(path.join(PACKAGE_ROOT, ".gateway"));
    expect(config.pluginPaths).toEqual([path.join(PACKAGE_ROOT, "examples", "channel-plugin")]);
    expect(config.mainLastRoute).toEqual({ channel: "bot_chat", to: "me" });
    const builtin = readManifest(PACKAGE_ROOT);
    if (!builtin.ok) throw new Error(builtin.reason);
    expect(checkPluginConfig(builtin.manifest, config.raw)).toEqual([]);
    const channel = readManifest(config.pluginPaths[0]!);
    expect(channel.ok).toBe(true);
  });
});
