/**
 * The gateway the dashboard e2e tests drive: a real `gateway` process whose
 * dashboard is fed by the test fixture plugin (test/fixtures/plugins/
 * inspector-plugin: an in-memory inspector whose deliveries are the requests
 * sent to its /fixture-hooks route). To run the same tests against the real
 * hooks plugin, replace `startInspectorGateway` and `sendHook` (hooks config and
 * POST /hooks/<name> with the hook token); the browser side needs no change.
 */
import path from "node:path";
import { REPO_ROOT, startGateway, type GatewayProcess } from "../../helpers/gateway-process";

export const OPERATOR_TOKEN = "e2e-dashboard-operator-token-0123456789";
export const FIXTURE_PLUGIN_DIR = path.join(REPO_ROOT, "test", "fixtures", "plugins", "inspector-plugin");

export function startInspectorGateway(): Promise<GatewayProcess> {
  return startGateway({
    config: {
      gateway: { auth: { token: OPERATOR_TOKEN } },
      plugins: { paths: [FIXTURE_PLUGIN_DIR] },
      agents: { defaults: { heartbeat: { every: "off" } } },
    },
  });
}

/** Sends one hook request the dashboard will list; resolves with the status. */
export async function sendHook(gw: GatewayProcess, hook: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${gw.baseUrl}/fixture-hooks/${encodeURIComponent(hook)}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });
  await res.text();
  return res.status;
}
