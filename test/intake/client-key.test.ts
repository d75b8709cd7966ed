/**
 * The client key is what the auth throttle and the rate policy count against: the address
 * the host reports (host API 2.0 `clientAddress`), IPv6 grouped by /56.
 */
import { clientKey } from "../../src/intake/client-key";

describe("clientKey", () => {
  it("is an IPv4 address itself, and what a host reports for a socket with no address", () => {
    expect(clientKey("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKey("unknown")).toBe("unknown");
  });

  it("groups IPv6 clients by /56 and writes IPv4-mapped addresses as IPv4, the same on a repeat (cached)", () => {
    for (let i = 0; i < 2; i++) {
      expect(clientKey("2001:db8:abcd:12ff:1::1")).toBe("2001:db8:abcd:1200::/56");
      expect(clientKey("2001:db8:abcd:1200::9")).toBe("2001:db8:abcd:1200::/56");
      expect(clientKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
      expect(clientKey("::1")).toBe("::/56");
    }
  });

  it("keeps a value that is no address as it is (a host's label), whatever its length", () => {
    expect(clientKey("not:an:address:zz")).toBe("not:an:address:zz");
    const long = `${"a:".repeat(40)}b`;
    expect(clientKey(long)).toBe(long);
  });
});
