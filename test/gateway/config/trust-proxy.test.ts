/** `gateway.trustProxy` entries: what is accepted (proxy-addr's forms we support) and what stops the start. */
import { isTrustProxyEntry, trustProxyProblems } from "../../../src/gateway/config/trust-proxy";
import { resolveGatewayConfig } from "../../../src/gateway/config/resolve-gateway-config";

describe("gateway.trustProxy", () => {
  it.each([
    "127.0.0.1",
    "::1",
    "10.0.0.0/8",
    "192.168.1.0/24",
    "0.0.0.0/0",
    "fd00::/8",
    "::ffff:127.0.0.1",
    "2001:db8::/128",
    "loopback",
    "linklocal",
    "uniquelocal",
  ])("accepts %s", (entry) => {
    expect(isTrustProxyEntry(entry)).toBe(true);
  });

  it.each([
    "10.0.0.0/33",
    "fd00::/129",
    "10.0.0.0/",
    "10.0.0.0/8/8",
    "10.0.0.0/255.0.0.0",
    "256.0.0.1",
    "proxy.example",
    "LOOPBACK",
    "127.0.0.1 ",
    "10.0.0.0/-1",
  ])("refuses %s", (entry) => {
    expect(isTrustProxyEntry(entry)).toBe(false);
  });

  it("names each bad entry by its index", () => {
    expect(trustProxyProblems(["127.0.0.1", "nope", "10.0.0.0/8", "10.0.0.0/40"]).map((p) => p.key)).toEqual([
      "gateway.trustProxy[1]",
      "gateway.trustProxy[3]",
    ]);
  });

  it("resolves to [] when absent, keeps the list when valid, and fails naming the key for a wrong type", () => {
    expect(resolveGatewayConfig({}, { configDir: "/tmp" }).trustProxy).toEqual([]);
    expect(resolveGatewayConfig({ gateway: { trustProxy: ["loopback", "10.0.0.0/8"] } }, { configDir: "/tmp" }).trustProxy).toEqual(["loopback", "10.0.0.0/8"]);
    expect(() => resolveGatewayConfig({ gateway: { trustProxy: true } }, { configDir: "/tmp" })).toThrow(/gateway\.trustProxy must be an array/);
    expect(() => resolveGatewayConfig({ gateway: { trustProxy: ["10.0.0.0/8", "x"] } }, { configDir: "/tmp" })).toThrow(
      /gateway\.trustProxy\[1\] must be an IP address, a CIDR range/,
    );
  });

  it("resolves gateway.logFormat, leaving it undefined (chosen by the terminal) when absent", () => {
    expect(resolveGatewayConfig({}, { configDir: "/tmp" }).logFormat).toBeUndefined();
    expect(resolveGatewayConfig({ gateway: { logFormat: "json" } }, { configDir: "/tmp" }).logFormat).toBe("json");
    expect(() => resolveGatewayConfig({ gateway: { logFormat: "text" } }, { configDir: "/tmp" })).toThrow(/gateway\.logFormat must be one of/);
  });
});
