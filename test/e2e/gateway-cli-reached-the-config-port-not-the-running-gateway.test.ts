/**
 * Regression: `gateway webhooks deliveries|runs …` and `webhooks test --delivery` took their
 * URL from `gateway.port` of the config, so after `gateway start --port N` (or `--port 0`) they
 * reached the wrong port unless `--url` was given. The running gateway now records where it
 * listens beside its `gateway.lock` (`<stateDir>/gateway.url.json`, 0600, removed at a clean
 * stop); the commands use it, and fall back to the config when no gateway runs (a record left by
 * a killed gateway is ignored).
 */
import fs from "node:fs";
import path from "node:path";
import { runGatewayCli, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { freePort } from "../helpers/free-port";
import { HOOK_TOKEN, hooksConfig } from "./gateway-setup";

const AUTH = { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json" };

describe("gateway e2e: the CLI reaches the gateway where it runs, not at gateway.port", () => {
  let gw: GatewayProcess | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });

  it("deliveries list, runs list and test --delivery reach a gateway started with --port 0 whose config names another port", async () => {
    const configPort = await freePort(); // nothing listens there
    gw = await startGateway({
      config: hooksConfig({
        gateway: { port: configPort },
        hooks: { mappings: [{ id: "crm", match: { path: "crm" }, action: "agent", messageTemplate: "Deal {{ payload.deal }}" }] },
      }),
    });
    expect(gw.port).not.toBe(configPort);
    const agent = await fetch(`${gw.baseUrl}/hooks/crm`, { method: "POST", headers: AUTH, body: '{"deal":"42"}' });
    expect(agent.status).toBe(202);

    const listed = await runGatewayCli(["webhooks", "deliveries", "list", "--json", "--config", gw.configPath]);
    expect(listed.stderr).toBe("");
    expect(listed.code).toBe(0);
    const [delivery] = (JSON.parse(listed.stdout) as { deliveries: Array<{ id: string; hook: string }> }).deliveries;
    expect(delivery?.hook).toBe("crm");

    const runs = await runGatewayCli(["webhooks", "runs", "list", "--json", "--config", gw.configPath]);
    expect(runs.code).toBe(0);
    expect((JSON.parse(runs.stdout) as { runs: unknown[] }).runs).toHaveLength(1);

    const dry = await runGatewayCli(["webhooks", "test", "crm", "--delivery", delivery!.id, "--config", gw.configPath]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Deal 42");

    const record = path.join(gw.stateDir, "gateway.url.json");
    expect(fs.statSync(record).mode & 0o777).toBe(0o600);

    // --url still wins over the record.
    const explicit = await runGatewayCli(["webhooks", "runs", "list", "--url", `http://127.0.0.1:${configPort}/hooks`, "--config", gw.configPath]);
    expect(explicit.code).toBe(1);
    expect(explicit.stderr).toContain(`the gateway is not reachable at http://127.0.0.1:${configPort}/hooks (ECONNREFUSED)`);

    // A clean stop removes the record: the commands fall back to the config's port.
    expect(await gw.stop()).toBe(0);
    gw = undefined;
    expect(fs.existsSync(record)).toBe(false);
  });

  it("a record left by a killed gateway is ignored: the commands fall back to the config's port", async () => {
    const configPort = await freePort();
    gw = await startGateway({ config: hooksConfig({ gateway: { port: configPort } }) });
    const { configPath, stateDir } = gw;
    await gw.kill9();
    gw = undefined;
    expect(fs.existsSync(path.join(stateDir, "gateway.url.json"))).toBe(true);

    const down = await runGatewayCli(["webhooks", "deliveries", "list", "--config", configPath]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`the gateway is not reachable at http://127.0.0.1:${configPort}/hooks (ECONNREFUSED)`);
  });
});
