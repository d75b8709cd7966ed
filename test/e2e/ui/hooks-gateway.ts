/**
 * The gateway the dashboard e2e tests drive: a real `gateway` process with the
 * built-in inbound-webhooks plugin (this package's dist/) feeding the dashboard,
 * hooks enabled with two mappings on `github` (an agent one, and a wake one it
 * shadows), one on `github-signed` verified like GitHub signs, and the echo runner slowed to ECHO_DELAY_MS per turn so a run is
 * seen queued/running before it succeeds.
 */
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { GATEWAY_TOKEN, HOOK_TOKEN, hooksConfig } from "../gateway-setup";
import { until } from "../../helpers/until";

export const OPERATOR_TOKEN = GATEWAY_TOKEN;
/** The `github-signed` mapping's webhook secret. */
export const GITHUB_SECRET = "dashboard-e2e-github-secret-0123";
export { HOOK_TOKEN };
/**
 * How long each echo turn takes. The deliveries list gets its row when the
 * request is answered (milliseconds), so 1.5 s leaves a wide margin for the row
 * to show a run that has not finished yet, and for the live update to follow.
 */
export const ECHO_DELAY_MS = 1500;

export function startHooksGateway(): Promise<GatewayProcess> {
  return startGateway({
    config: hooksConfig({
      hooks: {
        mappings: [
          {
            id: "github-push",
            match: { path: "github" },
            action: "agent",
            name: "GitHub",
            messageTemplate: "Push to {{ payload.ref }}: {{ payload.commits[0].message }}",
            deliver: true,
            channel: "phone_chat",
            event: "{{ headers.x-github-event }}",
          },
          { id: "github-late", match: { path: "github" }, action: "wake", textTemplate: "never reached" },
          // Signed like GitHub signs (the event comes from the verify scheme's default: X-GitHub-Event plus action).
          {
            id: "github-signed",
            match: { path: "github-signed" },
            action: "wake",
            textTemplate: "GitHub {{ headers.x-github-event }}",
            verify: { scheme: "github", secret: GITHUB_SECRET },
          },
        ],
      },
      agents: { runner: { kind: "echo", delayMs: ECHO_DELAY_MS }, defaults: { heartbeat: { every: "off" } } },
    }),
  });
}

/** The id of the newest delivery in the ledger (its read API), if any. */
async function newestDelivery(gw: GatewayProcess): Promise<string | undefined> {
  const res = await fetch(`${gw.baseUrl}/hooks/deliveries?limit=1`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
  const body = (await res.json()) as { deliveries?: Array<{ id: string }> };
  return body.deliveries?.[0]?.id;
}

/**
 * POSTs to the real `/hooks/<hook>` with the hook token; resolves with the status once
 * the ledger lists the delivery (it is recorded just after the answer, in a write window
 * of a few milliseconds — as a user reloading the page would, the tests wait for it).
 */
export async function sendHook(gw: GatewayProcess, hook: string, body: string, headers: Record<string, string> = {}): Promise<number> {
  const before = await newestDelivery(gw);
  const res = await fetch(`${gw.baseUrl}/hooks/${hook}`, {
    method: "POST",
    headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", ...headers },
    body,
  });
  await res.text();
  await until(async () => (await newestDelivery(gw)) !== before, `the ${hook} delivery to be listed in the ledger`, { timeoutMs: 10_000, intervalMs: 25 });
  return res.status;
}
