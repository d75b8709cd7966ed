import { DEFAULT_GATEWAY_BIND, DEFAULT_GATEWAY_PORT, isLoopback, parsePort, portRule } from "../../src/host-contract/gateway-address";

describe("parsePort", () => {
  it.each([
    ["1", 1, 1],
    ["65535", 1, 65535],
    [" 993 ", 1, 993],
    ["0", 0, 0],
    ["18789", 0, 18789],
  ] as const)("%j (from %d) is port %d", (text, min, port) => {
    expect(parsePort(text, min)).toBe(port);
  });

  it.each([
    ["0", 1],
    ["65536", 0],
    ["99999", 1],
    ["-1", 0],
    ["8080.0", 1],
    ["1e3", 1],
    ["0x50", 1],
    ["", 0],
    ["port", 1],
    ["123456789012", 1],
  ] as const)("%j (from %d) is not a port", (text, min) => {
    expect(parsePort(text, min)).toBeUndefined();
  });

  it("names the rule it checks", () => {
    expect(portRule(0)).toBe("must be an integer between 0 and 65535");
    expect(portRule(1)).toBe("must be an integer between 1 and 65535");
  });
});

describe("the gateway's default address", () => {
  it("is loopback on port 18789 (SPEC §2.2)", () => {
    expect(DEFAULT_GATEWAY_BIND).toBe("127.0.0.1");
    expect(DEFAULT_GATEWAY_PORT).toBe(18789);
    expect(isLoopback(DEFAULT_GATEWAY_BIND)).toBe(true);
  });
});

describe("isLoopback", () => {
  it.each(["127.0.0.1", "127.1.2.3", "localhost", "LOCALHOST", "::1", "[::1]", "::ffff:127.0.0.1"])("%s is this machine", (host) => {
    expect(isLoopback(host)).toBe(true);
  });

  // mail setup's former copy of the rule took any host starting with "127." for loopback.
  it.each(["127.example.org", "127.0.0.1.evil.example", "0.0.0.0", "::", "192.168.1.5", "imap.gmail.com"])("%s is not", (host) => {
    expect(isLoopback(host)).toBe(false);
  });
});
