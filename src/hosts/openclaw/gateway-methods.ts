/**
 * The plugin's operator methods (host-contract/operator-route.ts `OperatorMethod`: replay, …) as OpenClaw gateway
 * methods: `api.registerGatewayMethod("inbound-webhooks.<name>", handler, { scope })`, `operator.write` for a method
 * that changes something. OpenClaw authenticates the caller and checks the scope before the handler runs; any
 * gateway client reaches them, `openclaw gateway call inbound-webhooks.deliveries.replay --params '{"id":"…"}'` too.
 * The Control UI's sandboxed frame cannot (its grant is GET/HEAD operator.read and it has no gateway connection),
 * so the inspector's page offers that command (docs/openclaw.md "Replay from the Webhooks tab").
 */
import type { HostLogger } from "../../host-contract/host-api";
import type { OperatorMethodRefusal, OperatorRouteRegistration } from "../../host-contract/operator-route";
import { shellQuote } from "../../host-contract/shell-quote";
import type { OpenClawGatewayMethodHandler, OpenClawPluginApi } from "./openclaw-api";
import { PLUGIN_ID } from "./config-snapshot";

/** OpenClaw's name of an operator method. */
export function gatewayMethodName(name: string): string {
  return `${PLUGIN_ID}.${name}`;
}

/** The command that calls an operator method through the running gateway (what a read-only page offers). */
export function gatewayCallCommand(name: string, params: Readonly<Record<string, unknown>>): string {
  return `openclaw gateway call ${gatewayMethodName(name)} --params ${shellQuote(JSON.stringify(params))}`;
}

function isRefusal(e: unknown): e is Error & OperatorMethodRefusal {
  const r = e as Partial<OperatorMethodRefusal> | null;
  return e instanceof Error && typeof r?.code === "string" && typeof r.status === "number" && r.status >= 400 && r.status <= 499;
}

/** Registers every route's methods; false when this OpenClaw offers no gateway methods (nothing registered). */
export function registerGatewayMethods(api: OpenClawPluginApi, routes: readonly OperatorRouteRegistration[], logger: HostLogger): boolean {
  if (typeof api.registerGatewayMethod !== "function") return false;
  for (const route of routes)
    for (const [name, method] of Object.entries(route.methods ?? {})) {
      const handler: OpenClawGatewayMethodHandler = async ({ params, respond, client }) => {
        try {
          const answer = await method.handle(params ?? {}, { clientAddress: client?.clientIp ?? "gateway" });
          respond(true, answer);
        } catch (e) {
          if (isRefusal(e)) return respond(false, undefined, { code: e.code, message: e.message, details: { status: e.status } });
          logger.error("operator method failed", { method: name, error: (e as Error)?.message ?? String(e) });
          respond(false, undefined, { code: "internal_error", message: "Internal error; the gateway log has the reason." });
        }
      };
      api.registerGatewayMethod(gatewayMethodName(name), handler, { scope: method.write ? "operator.write" : "operator.read" });
    }
  return true;
}
