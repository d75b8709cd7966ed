/**
 * The plugin manager end to end (SPEC §2.2): `gateway plugins install`
 * of this package's own `npm pack` tarball into a fresh state dir, `plugins list`,
 * a gateway serving `/hooks/wake` from the installed copy; a plugin with an
 * invalid manifest listed as broken while the gateway still starts; the example
 * channel plugin enabling `workspace_chat_plugin`, and disabling it again.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, REPO_ROOT, runGatewayCli } from "../helpers/gateway-process";
import { packedTarball } from "../helpers/packed-tarball";
import { CHANNEL_PLUGIN_DIR, gatewayPerTest, HOOK_TOKEN, hooksConfig, postJson } from "./gateway-setup";

interface ListRow {
  id: string | null;
  version: string | null;
  origin: string;
  status: string;
  reason: string | null;
  dir: string;
}

async function listPlugins(configPath: string): Promise<ListRow[]> {
  const r = await runGatewayCli(["plugins", "list", "--json", "--config", configPath]);
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as ListRow[];
}

function writeConfig(dir: string, config: Record<string, unknown>): string {
  const file = path.join(dir, "gateway.config.json");
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  return file;
}

describe("gateway e2e: plugin manager", () => {
  const gateway = gatewayPerTest();

  it("installs the npm pack tarball into a fresh state dir, lists it, and serves /hooks/wake from it", async () => {
    const dir = makeGatewayDir("gw-install-");
    const tgz = packedTarball(dir);
    const configPath = writeConfig(dir, hooksConfig());

    const inst = await runGatewayCli(["plugins", "install", tgz, "--config", configPath], { timeoutMs: 120000 });
    expect(inst.stderr).toBe("");
    expect(inst.code).toBe(0);
    const installedDir = path.join(dir, ".gateway", "plugins", "inbound-webhooks");
    expect(inst.stdout).toMatch(new RegExp(`^installed inbound-webhooks \\S+ in ${installedDir}`));

    const rows = await listPlugins(configPath);
    expect(rows.find((r) => r.origin === "installed")).toMatchObject({ id: "inbound-webhooks", status: "enabled", dir: installedDir });
    expect(rows.find((r) => r.origin === "builtin")).toMatchObject({ id: "inbound-webhooks", status: "shadowed" });

    const gw = await gateway.start({ dir, configPath });
    expect(gw.stdout()).toMatch(/^plugin: inbound-webhooks \S+ \(installed\) active$/m);
    const res = await postJson(`${gw.baseUrl}/hooks/wake`, { text: "from the installed copy" });
    expect(res).toEqual({ status: 200, body: { ok: true, mode: "now" } });
    await gw.waitForJournal((e) => e.type === "system_event" && String(e.text).includes("from the installed copy"));
    await gw.waitForJournal((e) => e.type === "heartbeat");
  });

  it("lists a plugin with an invalid manifest as broken, with the reason, and still starts", async () => {
    const dir = makeGatewayDir("gw-broken-");
    const brokenDir = path.join(dir, ".gateway", "plugins", "half-done");
    fs.mkdirSync(brokenDir, { recursive: true });
    fs.writeFileSync(path.join(brokenDir, "plugin.json"), JSON.stringify({ id: "half-done", name: "Half done", version: "1.0.0", hostApi: "^2.0.0" }));
    const configPath = writeConfig(dir, hooksConfig());

    const rows = await listPlugins(configPath);
    expect(rows.find((r) => r.dir === brokenDir)).toEqual({
      id: "half-done",
      name: null,
      version: null,
      origin: "installed",
      dir: brokenDir,
      status: "broken",
      reason: "plugin.json: main is required",
    });

    const gw = await gateway.start({ dir, configPath });
    expect(gw.stdout()).toContain("plugin: half-done (installed) broken: plugin.json: main is required");
    expect(gw.journal()).toContainEqual(
      expect.objectContaining({ type: "plugin", id: "half-done", status: "broken", reason: "plugin.json: main is required" }),
    );
    expect((await postJson(`${gw.baseUrl}/hooks/wake`, { text: "still up" })).status).toBe(200);
  });

  it("plugins list keeps six tab-separated columns whether a plugin has a reason or not (was: the dir in column 5 without a reason, 6 with one)", async () => {
    const dir = makeGatewayDir("gw-columns-");
    const brokenDir = path.join(dir, ".gateway", "plugins", "half-done");
    fs.mkdirSync(brokenDir, { recursive: true });
    fs.writeFileSync(path.join(brokenDir, "plugin.json"), JSON.stringify({ id: "half-done", name: "Half done", version: "1.0.0", hostApi: "^2.0.0" }));
    const r = await runGatewayCli(["plugins", "list", "--config", writeConfig(dir, hooksConfig())]);
    expect(r.code).toBe(0);
    expect(
      r.stdout
        .trim()
        .split("\n")
        .map((line) => line.split("\t")),
    ).toEqual([
      ["half-done", "-", "installed", "broken", "plugin.json: main is required", brokenDir],
      ["inbound-webhooks", expect.any(String), "builtin", "enabled", "-", REPO_ROOT],
    ]);
  });

  it("offers workspace_chat_plugin only while the example channel plugin is enabled", async () => {
    const dir = makeGatewayDir("gw-channel-");
    const configPath = writeConfig(dir, hooksConfig({ plugins: { paths: [CHANNEL_PLUGIN_DIR] }, workspaceChat: { defaultChannelId: "C-default" } }));
    const body = { message: "post this", name: "Chan", channel: "workspace_chat_plugin", to: "C-42", sessionKey: "hook:chan" };

    let gw = await gateway.start({ dir, configPath });
    expect(gw.stdout()).toMatch(/^plugin: workspace-chat-channel 1\.0\.0 \(path\) active$/m);
    const ok = await postJson(`${gw.baseUrl}/hooks/agent`, body);
    expect(ok.status).toBe(202);
    const delivery = await gw.waitForJournal((e) => e.type === "delivery" && e.channel === "workspace_chat_plugin");
    expect(delivery).toMatchObject({ to: "C-42", via: "workspace-chat-channel" });
    expect(String(delivery.text)).toMatch(/^echo: [\s\S]*post this/);
    const outbox = fs
      .readFileSync(path.join(dir, ".gateway", "data", "workspace-chat-channel", "outbox.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(outbox).toHaveLength(1);
    expect(JSON.parse(outbox[0]!)).toMatchObject({ to: "C-42", text: delivery.text });
    expect(await gw.stop()).toBe(0);

    const off = await runGatewayCli(["plugins", "disable", "workspace-chat-channel", "--config", configPath]);
    expect(off).toMatchObject({ code: 0, stdout: "disabled workspace-chat-channel (restart the gateway to apply)\n" });
    gw = await gateway.start({ dir, configPath });
    expect(gw.stdout()).toContain("plugin: workspace-chat-channel 1.0.0 (path) disabled");
    const refused = await postJson(`${gw.baseUrl}/hooks/agent`, body);
    // status and body together, so a failure shows what answered
    expect({ status: refused.status, body: refused.body }).toMatchObject({ status: 400, body: { code: "channel_unavailable" } });
    // The refusal names what is offered, and the disabled plugin's channel is not among it.
    expect((refused.body as { error: string }).error).toContain("one of the channels the gateway offers: phone_chat");
    expect((refused.body as { error: string }).error).not.toContain("workspace_chat_plugin");
  });

  it("refuses to enable an unknown plugin id and reports a bad install source", async () => {
    const dir = makeGatewayDir();
    const configPath = writeConfig(dir, hooksConfig());
    const r = await runGatewayCli(["plugins", "enable", "nope", "--config", configPath]);
    expect(r).toMatchObject({ code: 1, stderr: 'gateway: plugins enable: no plugin with id "nope" (see gateway plugins list)\n' });
    const bad = await runGatewayCli(["plugins", "install", path.join(dir, "missing.tgz"), "--config", configPath]);
    expect(bad).toMatchObject({ code: 1, stderr: `gateway: plugins install: ${path.join(dir, "missing.tgz")} does not exist\n` });
  });

  it("runs commands registered by plugins (gateway webhooks --help)", async () => {
    const dir = makeGatewayDir();
    const configPath = writeConfig(dir, { hooks: { enabled: true, token: HOOK_TOKEN } });
    const r = await runGatewayCli(["webhooks", "--help", "--config", configPath]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Usage: gateway webhooks/);
    expect(r.stdout).toContain("mail");
  });
});
