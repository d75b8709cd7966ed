/**
 * Shared pieces of the gateway end-to-end tests: the hook token, a config
 * builder, and JSON POST helpers. The tests run the real `gateway` process with
 * the real hooks plugin (the built-in one, this package's dist/bundle/index.js).
 */
import path from "node:path";
import { execFileSync } from "node:child_process";
import { expectCleanBody } from "../helpers/expect-clean";
import { REPO_ROOT, startGateway, type GatewayProcess, type StartGatewayOptions } from "../helpers/gateway-process";

export const HOOK_TOKEN = "e2e-hook-token-0123456789abcdef";
export const GATEWAY_TOKEN = "e2e-operator-token-0123456789";
export const CHANNEL_PLUGIN_DIR = path.join(REPO_ROOT, "examples", "channel-plugin");

/** True when dist/bundle/index.js (plugin.json#main: the built-in plugin the gateway loads) loads, i.e. the plugin is built. */
function realPluginLoads(): boolean {
  try {
    execFileSync(process.execPath, ["-e", "require(process.argv[1])", path.join(REPO_ROOT, "dist", "bundle", "index.js")], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
/** True when the built plugin does not load (tests then fail with a clear hint). */
export const PLUGIN_NOT_BUILT = !realPluginLoads();
/** @deprecated alias of PLUGIN_NOT_BUILT (kept for tests written against an earlier version). */
export const USE_FIXTURE = PLUGIN_NOT_BUILT;

/** A gateway config with hooks enabled; `extra` is merged one level deep. */
export function hooksConfig(extra: Record<string, Record<string, unknown>> = {}): Record<string, unknown> {
  const base: Record<string, Record<string, unknown>> = {
    gateway: { auth: { token: GATEWAY_TOKEN } },
    hooks: { enabled: true, token: HOOK_TOKEN },
    agents: { defaults: { heartbeat: { every: "off" } } },
  };
  const out: Record<string, Record<string, unknown>> = { ...base };
  for (const [k, v] of Object.entries(extra)) {
    out[k] = { ...(base[k] ?? {}), ...v };
  }
  return out;
}

export async function postJson(url: string, body: unknown, token = HOOK_TOKEN): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expectCleanResponse(text, token);
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

/** Every e2e response body: no stack, no hook/operator token (nor `extraSecret`), no filesystem path (SPEC §4.2). */
export function expectCleanResponse(text: string, extraSecret?: string): void {
  expectCleanBody(text, [HOOK_TOKEN, GATEWAY_TOKEN, ...(extraSecret ? [extraSecret] : [])]);
}

export async function apiStatus(baseUrl: string): Promise<Record<string, unknown>> {
  const res = await fetch(`${baseUrl}/api/status`, { headers: { authorization: `Bearer ${GATEWAY_TOKEN}` } });
  if (res.status !== 200) throw new Error(`/api/status answered ${res.status}`);
  const text = await res.text();
  expectCleanResponse(text);
  return JSON.parse(text) as Record<string, unknown>;
}

/**
 * For the calling describe: `start` launches a gateway, and an afterEach (registered
 * here, so before the describe's own) stops the one started last, as every test's cleanup.
 */
export function gatewayPerTest(): { start(opts?: StartGatewayOptions): Promise<GatewayProcess> } {
  let gw: GatewayProcess | undefined;
  afterEach(async () => {
    await gw?.stop();
    gw = undefined;
  });
  return {
    async start(opts) {
      gw = await startGateway(opts);
      return gw;
    },
  };
}
