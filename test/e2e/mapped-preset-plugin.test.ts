/**
 * Preset plugins (SPEC §6.4) against the real `gateway` process (built
 * dist): the example Alertmanager preset plugin installed with
 * `gateway plugins install` and enabled in `hooks.presets` handles Alertmanager's
 * payload end to end (run → delivery → summary in the journal), and
 * `gateway webhooks test` shows the rendered action without dispatching anything.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, readJournal, REPO_ROOT, runGatewayCli, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { expectCleanResponse, HOOK_TOKEN, hooksConfig, USE_FIXTURE } from "./gateway-setup";
import { wrappedContentOrUndefined } from "../helpers/wrapped";

const PLUGIN_DIR = path.join(REPO_ROOT, "examples", "preset-plugin-alertmanager");
const FIRING = path.join(PLUGIN_DIR, "fixtures", "firing.json");
const MAIL_PUSH = path.join(REPO_ROOT, "test", "fixtures", "payloads", "mail-push-3.json");

async function post(url: string, file: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", "user-agent": "Alertmanager/0.28.1" },
    body: fs.readFileSync(file),
  });
  const text = await res.text();
  expectCleanResponse(text);
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

describe("gateway e2e: a preset plugin and the mapping dry run", () => {
  let dir: string;
  let configPath: string;
  let gw: GatewayProcess | undefined;

  beforeAll(async () => {
    if (USE_FIXTURE) throw new Error("dist/bundle/index.js does not load: build it first (npm run build)");
    dir = makeGatewayDir("gw-preset-");
    configPath = path.join(dir, "gateway.config.json");
    fs.writeFileSync(configPath, JSON.stringify(hooksConfig({ hooks: { presets: ["alertmanager", "mail"] } }), null, 2));
    const inst = await runGatewayCli(["plugins", "install", PLUGIN_DIR, "--config", configPath], { timeoutMs: 60000 });
    expect(inst.stderr).toBe("");
    expect(inst.code).toBe(0);
    expect(inst.stdout).toContain("installed alertmanager-preset 0.1.0");
  });

  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("handles Alertmanager's firing notification: 202, one run listing both alerts, delivered, summarised", async () => {
    gw = await startGateway({ dir, configPath });
    const res = await post(`${gw.baseUrl}/hooks/alertmanager`, FIRING);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ ok: true, mapping: "alertmanager", sessionKey: expect.stringMatching(/^hook:alertmanager:[0-9a-f]{16}$/) });

    const turn = await gw.waitForJournal((e) => e.type === "agent_turn" && e.sessionKey === res.body.sessionKey, 15000);
    expect(turn.status).toBe("ok");
    const delivery = await gw.waitForJournal((e) => e.type === "delivery", 15000);
    expect(delivery.channel).toBe("phone_chat");
    expect(String(delivery.text)).toContain("Disk /srv/media almost full");
    expect(String(delivery.text)).toContain("Disk /srv/backup almost full");
    const summary = await gw.waitForJournal(
      (e) => e.type === "system_event" && wrappedContentOrUndefined(String(e.text))?.startsWith("Hook Alertmanager DiskAlmostFull") === true,
      15000,
    );
    expect(summary.sessionKey).toBe("main");
  });

  it("gateway webhooks test prints the rendered action and leaves the journal unchanged", async () => {
    const stateDir = path.join(dir, ".gateway");
    const before = readJournal(stateDir);
    const r = await runGatewayCli(["webhooks", "test", "alertmanager", "--payload", FIRING, "--config", configPath]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Mapping:  alertmanager (presets.alertmanager.mappings[0])");
    expect(r.stdout).toContain("Outcome:  agent run (the hook would answer 202)");
    expect(r.stdout).toContain("Name:     Alertmanager DiskAlmostFull");
    expect(r.stdout).toMatch(/Session: {2}hook:alertmanager:[0-9a-f]{16}\n/);
    expect(r.stdout).toContain("  1. [critical] Disk /srv/media almost full");
    expect(r.stdout).toContain("Dry run: nothing was dispatched.");

    const json = await runGatewayCli(["webhooks", "test", "mail", "--payload", MAIL_PUSH, "--json", "--config", configPath]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: true,
      mapping: { id: "mail" },
      action: { kind: "agent", name: "Mail", sessionKey: "hook:mail:CAF3x9k2Zp1qW7v@mail.example.org" },
      dispatched: false,
    });

    const miss = await runGatewayCli(["webhooks", "test", "nothing-here", "--payload", FIRING, "--config", configPath]);
    expect(miss.code).toBe(1);
    expect(miss.stderr).toContain('webhooks test: No mapping matches "nothing-here" (the hook would answer 404 not_found).');

    expect(readJournal(stateDir)).toEqual(before);
  });
});
