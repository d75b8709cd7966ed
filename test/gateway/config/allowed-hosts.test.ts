/** `gateway.ui.allowedHosts` entries: what is accepted and what stops the start. */
import { allowedHostsProblems, isAllowedHostEntry } from "../../../src/gateway/config/allowed-hosts";
import { resolveGatewayConfig } from "../../../src/gateway/config/resolve-gateway-config";

describe("gateway.ui.allowedHosts", () => {
  it.each([
    "dash.example.com",
    "Dash.Example.COM",
    "dash.example.com.",
    "nas",
    "my_host.lan",
    "10.0.0.5",
    "::1",
    "[fd00::1]",
    "fd00::1",
    "xn--bcher-kva.example",
  ])("accepts %s", (entry) => {
    expect(isAllowedHostEntry(entry)).toBe(true);
  });

  it.each([
    "https://dash.example.com",
    "dash.example.com:8443",
    "dash.example.com/ui",
    "*.example.com",
    "*",
    ".example.com",
    "a..b",
    "-a.example",
    "a b",
    "[10.0.0.5]",
    "[nas]",
    "user@host",
    `${"a".repeat(64)}.example`,
  ])("refuses %s", (entry) => {
    expect(isAllowedHostEntry(entry)).toBe(false);
  });

  it("names each bad entry by its index", () => {
    expect(allowedHostsProblems(["ok.example", "https://x", "localhost", "x:1"]).map((p) => p.key)).toEqual([
      "gateway.ui.allowedHosts[1]",
      "gateway.ui.allowedHosts[3]",
    ]);
  });

  it("resolves to undefined when absent, keeps the list when valid, and fails naming the key", () => {
    expect(resolveGatewayConfig({}, { configDir: "/tmp" }).uiAllowedHosts).toBeUndefined();
    expect(resolveGatewayConfig({ gateway: { ui: { allowedHosts: ["dash.example.com"] } } }, { configDir: "/tmp" }).uiAllowedHosts).toEqual([
      "dash.example.com",
    ]);
    expect(resolveGatewayConfig({ gateway: { ui: { allowedHosts: [] } } }, { configDir: "/tmp" }).uiAllowedHosts).toEqual([]);
    expect(() => resolveGatewayConfig({ gateway: { ui: { allowedHosts: "dash.example.com" } } }, { configDir: "/tmp" })).toThrow(
      /gateway\.ui\.allowedHosts must be an array/,
    );
    expect(() => resolveGatewayConfig({ gateway: { ui: { allowedHosts: ["ok", "https://x"] } } }, { configDir: "/tmp" })).toThrow(
      /gateway\.ui\.allowedHosts\[1\] must be a host name or an IP address, without scheme, port, path or wildcard/,
    );
    expect(() => resolveGatewayConfig({ gateway: { ui: { allowedHost: [] } } }, { configDir: "/tmp" })).toThrow(
      /gateway\.ui\.allowedHost is not a known key \(did you mean gateway\.ui\.allowedHosts\?\)/,
    );
  });
});
