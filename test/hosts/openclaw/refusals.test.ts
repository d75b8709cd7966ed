import { HOST_UNAVAILABLE_TEXTS, isHostUnavailable } from "../../../src/hosts/openclaw/refusals";

/** OpenClaw 2026.9.6's GatewayDrainingError (process/gateway-work-admission): its class name and default text. */
class GatewayDrainingError extends Error {
  constructor(message = "Gateway is draining; new tasks are not accepted") {
    super(message);
    this.name = "GatewayDrainingError";
  }
}

describe("OpenClaw's refusals classified by what they mean (refusals.ts)", () => {
  // Each text below is one OpenClaw 2026.9.6 gives; the first three were recorded as runs `failed` (issue 32).
  it.each([
    ["a run whose model replied during the drain", new Error("Gateway instance dispatch unavailable for agent turn")],
    ["the queued run asking for admission once the drain began", new GatewayDrainingError()],
    ["the same refusal handed on as a run's error text", "Error: Gateway is draining; new tasks are not accepted"],
    ["a reload retiring the plugin's generation (subagent_ended hook)", new Error("Plugin inventory has retired; begin a new plugin operation.")],
    ["the restart drain's own abort", new GatewayDrainingError("gateway is draining for restart")],
    ["a runtime reset (SIGUSR2)", new GatewayDrainingError("gateway runtime reset")],
    ["a retired continuation", new Error("gateway root work continuation is no longer active")],
    ["the instance closing for another method", new Error("Gateway instance dispatch unavailable for recovery notice")],
    ["the lifecycle runtime gone", new Error("Gateway instance lifecycle dispatch unavailable for agent")],
    // Recorded as the run's failure in a plugin reload with the run waiting for the model (openclaw-lifecycle.test.ts, 2026.9.6).
    ["regression: a reload replaced the runtime the run's wait was made through", new Error('Plugin "inbound-webhooks" runtime is no longer active.')],
    ["the same handed on as a run's error text", 'the agent runner failed: Plugin "inbound-webhooks" runtime is no longer active.'],
    ["a retired plugin instance", new Error("Plugin inbound-webhooks was reloaded or disabled; use its current tools.")],
  ])("host unavailable: %s", (_what, refusal) => {
    expect(isHostUnavailable(refusal)).toBe(true);
  });

  it("GatewayDrainingError is known by its class name whatever its message", () => {
    expect(isHostUnavailable(new GatewayDrainingError("something new"))).toBe(true);
  });

  it.each([
    ["a model failure", new Error("model exploded")],
    ["a scope refusal", new Error("missing scope: operator.write")],
    ["an unknown run", Object.assign(new Error("unknown run"), { code: "INVALID_REQUEST" })],
    ["a run's own error text", "the tool failed: Gateway is"],
    ["another plugin's own text", "the runtime is no longer active"],
    ["nothing", undefined],
    ["an empty text", ""],
    ["a number", 42],
  ])("the run's own failure: %s", (_what, refusal) => {
    expect(isHostUnavailable(refusal)).toBe(false);
  });

  it("the texts are fixed strings (no pattern runs over OpenClaw's or a sender's text)", () => {
    for (const text of HOST_UNAVAILABLE_TEXTS) expect(typeof text).toBe("string");
    expect(isHostUnavailable("x".repeat(1_000_000))).toBe(false);
  });
});
