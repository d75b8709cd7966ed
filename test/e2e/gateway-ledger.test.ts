/**
 * The delivery ledger on the real gateway (SPEC §11): the list and detail after a
 * mapped agent, a wake and a 404 (secrets absent from the answer and from the
 * database files), replay over HTTP and with the real CLI reaching the echo runner
 * (journal), `webhooks test --delivery` against a changed mapping, the hooks
 * summary of /api/status, survival of a restart, and the CLI's word when the
 * gateway is down.
 */
import fs from "node:fs";
import path from "node:path";
import { runGatewayCli, type GatewayProcess, type JournalEntry } from "../helpers/gateway-process";
import { freePort } from "../helpers/free-port";
import { until } from "../helpers/until";
import { apiStatus, expectCleanResponse, gatewayPerTest, HOOK_TOKEN, hooksConfig } from "./gateway-setup";

const SIGNATURE = "sha256=0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";
const COOKIE_VALUE = "cookie-value-e2e-5d4c3b2a";
const AUTH = { authorization: `Bearer ${HOOK_TOKEN}` };

function config(port: number, template = "Deal {{ payload.deal }}"): Record<string, unknown> {
  return hooksConfig({
    gateway: { port },
    hooks: { mappings: [{ id: "crm", match: { path: "crm" }, action: "agent", name: "CRM", messageTemplate: template }] },
  });
}

async function getJson(gw: GatewayProcess, p: string): Promise<Record<string, any>> {
  const res = await fetch(`${gw.baseUrl}/hooks${p}`, { headers: AUTH });
  const text = await res.text();
  expectCleanResponse(text);
  expect(res.status).toBe(200);
  return JSON.parse(text) as Record<string, any>;
}

const hookTurns = (gw: GatewayProcess): JournalEntry[] => gw.journal().filter((e) => e.type === "agent_turn" && String(e.sessionKey).startsWith("hook:"));

function databaseBytes(stateDir: string): Buffer {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.startsWith("inbound-webhooks.sqlite")) files.push(full);
    }
  };
  walk(stateDir);
  expect(files.length).toBeGreaterThan(0);
  return Buffer.concat(files.map((f) => fs.readFileSync(f)));
}

describe("gateway e2e: delivery ledger", () => {
  const gateway = gatewayPerTest();
  let port: number;
  let gw: GatewayProcess;

  beforeEach(async () => {
    port = await freePort();
    gw = await gateway.start({ config: config(port), port });
  });

  async function sendThree(): Promise<string> {
    const agent = await fetch(`${gw.baseUrl}/hooks/crm`, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json", "x-hub-signature-256": SIGNATURE, cookie: `sid=${COOKIE_VALUE}` },
      body: JSON.stringify({ deal: "42" }),
    });
    expect(agent.status).toBe(202);
    const runId = ((await agent.json()) as { runId: string }).runId;
    const wake = await fetch(`${gw.baseUrl}/hooks/wake`, {
      method: "POST",
      headers: { ...AUTH, "content-type": "application/json" },
      body: '{"text":"hello"}',
    });
    expect(wake.status).toBe(200);
    const missing = await fetch(`${gw.baseUrl}/hooks/unknown-hook`, { method: "POST", headers: { ...AUTH, "content-type": "application/json" }, body: "{}" });
    expect(missing.status).toBe(404);
    await until(async () => (await getJson(gw, "/deliveries")).deliveries.length === 3, "three ledger rows");
    return runId;
  }

  it("lists a mapped agent, a wake and a 404 newest first; the detail keeps the body and no secret reaches the answer or the database files", async () => {
    const runId = await sendThree();
    const { deliveries } = await getJson(gw, "/deliveries");
    expect(deliveries.map((d: any) => [d.hook, d.status, d.runIds])).toEqual([
      ["unknown-hook", 404, []],
      ["wake", 200, []],
      ["crm", 202, [runId]],
    ]);
    const detail = await getJson(gw, `/deliveries/${deliveries[2].id}`);
    expect(detail.delivery.body).toBe('{"deal":"42"}');
    const serialized = JSON.stringify(detail);
    for (const secret of [HOOK_TOKEN, SIGNATURE, COOKIE_VALUE]) expect(serialized).not.toContain(secret);
    const bytes = databaseBytes(gw.stateDir);
    expect(bytes.includes('{"deal":"42"}')).toBe(true);
    for (const secret of [HOOK_TOKEN, SIGNATURE, COOKIE_VALUE]) expect(bytes.includes(secret)).toBe(false);

    const status = await apiStatus(gw.baseUrl);
    expect(status.hooks).toMatchObject({ ledgerEntries: 3, lastDeliveryAt: deliveries[0].receivedAt, failedLastHour: 0 });
  });

  it("replay over HTTP and with the CLI each start a run the echo runner takes; test --delivery shows today's mapping", async () => {
    await sendThree();
    await until(() => hookTurns(gw).length === 1, "the first run's agent turn", { detail: () => JSON.stringify(gw.journal()) });
    const crm = (await getJson(gw, "/deliveries?hook=crm")).deliveries[0];

    const res = await fetch(`${gw.baseUrl}/hooks/deliveries/${crm.id}/replay`, { method: "POST", headers: AUTH });
    expect(res.status).toBe(202);
    const replayed = (await res.json()) as { runId: string };
    await until(() => hookTurns(gw).length === 2, "the replayed run's agent turn");
    // The replay's row is recorded just after its answer (within the ledger's short write window).
    let newest: Record<string, unknown> = {};
    await until(
      async () => {
        newest = (await getJson(gw, "/deliveries?limit=1")).deliveries[0];
        return newest.replayOf === crm.id;
      },
      "the replay's delivery to be listed",
      { detail: () => JSON.stringify(newest) },
    );
    expect(newest).toMatchObject({ replayOf: crm.id, runIds: [replayed.runId], status: 202 });

    const cli = await runGatewayCli(["webhooks", "deliveries", "replay", crm.id, "--config", gw.configPath]);
    expect(cli.stderr).not.toContain("not reachable");
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(new RegExp(`^Replayed ${crm.id} as delivery [0-9a-f-]{36}: 202$`, "m"));
    await until(() => hookTurns(gw).length === 3, "the CLI replay's agent turn");
    await until(async () => (await getJson(gw, "/deliveries?hook=crm")).deliveries.length === 3, "the CLI replay's delivery to be listed");

    const listed = await runGatewayCli(["webhooks", "deliveries", "list", "--hook", "crm", "--config", gw.configPath]);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split("\n")[0]).toMatch(/^ID\s+AGE\s+STATUS\s+CODE\s+HOOK\s+RUNS$/);
    for (const line of listed.stdout.split("\n")) expect(line.length).toBeLessThanOrEqual(100);
    const wide = await runGatewayCli(["webhooks", "deliveries", "list", "--wide", "--hook", "crm", "--config", gw.configPath]);
    expect(wide.stdout.split("\n")[0]).toMatch(/^RECEIVED\s+ID\s+METHOD\s+HOOK\s+EVENT\s+STATUS\s+BADGES/);
    expect(wide.stdout.match(new RegExp(crm.id, "g"))).toHaveLength(3); // the original, and the replay-of column of both replays

    // The mapping changes in the config file; the running gateway still has the old one, the dry run reads the file.
    fs.writeFileSync(gw.configPath, JSON.stringify(config(port, "Changed deal {{ payload.deal }}"), null, 2));
    const dry = await runGatewayCli(["webhooks", "test", "crm", "--delivery", crm.id, "--config", gw.configPath]);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain("Changed deal 42");
    expect(dry.stdout).toContain("Mapping:  crm");
  });

  it("the ledger survives a restart; with the gateway down the CLI says it is not reachable", async () => {
    await sendThree();
    const before = (await getJson(gw, "/deliveries")).deliveries.map((d: any) => d.id);
    await gw.stop();
    const down = await runGatewayCli(["webhooks", "deliveries", "list", "--config", gw.configPath]);
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(`the gateway is not reachable at http://127.0.0.1:${port}/hooks (ECONNREFUSED)`);
    gw = await gateway.start({ dir: gw.dir, configPath: gw.configPath, port });
    expect((await getJson(gw, "/deliveries")).deliveries.map((d: any) => d.id)).toEqual(before);
    const runs = await runGatewayCli(["webhooks", "runs", "list", "--json", "--config", gw.configPath]);
    expect(runs.code).toBe(0);
    expect(JSON.parse(runs.stdout).runs).toHaveLength(1);
    const shown = await runGatewayCli(["webhooks", "deliveries", "show", before[2], "--config", gw.configPath]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain("Request:         POST /hooks/crm");
    expect(shown.stdout).toContain("  authorization: [REDACTED]");
    expect(shown.stdout).toContain('Body:\n  {\n    "deal": "42"\n  }\n'); // pretty-printed
    expect(shown.stdout).not.toContain(COOKIE_VALUE);
  });
});
