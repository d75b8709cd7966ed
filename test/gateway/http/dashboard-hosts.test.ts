/** The Host names the dashboard and the operator API answer (DNS-rebinding protection). */
import { dashboardHostRule, hostAllowed, hostHeaderName, isLoopbackName } from "../../../src/gateway/http/dashboard-hosts";

describe("dashboard host rule", () => {
  it.each([
    ["localhost", "localhost"],
    ["LocalHost:18789", "localhost"],
    ["dash.example.com.:443", "dash.example.com"],
    ["[::1]:18789", "::1"],
    ["[::1]", "::1"],
    ["127.0.0.1:0", "127.0.0.1"],
  ])("reads the name of Host %s", (host, name) => {
    expect(hostHeaderName(host)).toBe(name);
  });

  it.each([undefined, "", ":18789", "localhost:abc", "localhost:123456", "[::1", "[::1]x", "::1", "a:1:2", "localhost:"])(
    "reads no name from Host %s",
    (host) => {
      expect(hostHeaderName(host)).toBeUndefined();
    },
  );

  it.each(["localhost", "a.localhost", "127.0.0.1", "127.255.0.9", "::1", "::ffff:127.0.0.1", "::ffff:7f00:1", "0:0:0:0:0:0:0:1"])(
    "%s is a loopback name",
    (name) => {
      expect(isLoopbackName(name)).toBe(true);
    },
  );

  it.each(["localhost.attacker.test", "notlocalhost", "128.0.0.1", "0.0.0.0", "::", "::ffff:8.8.8.8", "10.0.0.1"])("%s is not a loopback name", (name) => {
    expect(isLoopbackName(name)).toBe(false);
  });

  it("is enforced on a loopback bind, and on another bind only when gateway.ui.allowedHosts is set (even empty)", () => {
    for (const bind of ["127.0.0.1", "::1", "localhost", "127.0.0.2"]) expect(dashboardHostRule(bind, undefined).enforced).toBe(true);
    for (const bind of ["0.0.0.0", "::", "192.168.1.5"]) expect(dashboardHostRule(bind, undefined).enforced).toBe(false);
    expect(dashboardHostRule("0.0.0.0", []).enforced).toBe(true);
  });

  it("allows loopback names, the listed names and the bind address; refuses a missing Host and every other name", () => {
    const rule = dashboardHostRule("192.168.1.5", ["Dash.Example.com", "[fd00::1]"]);
    for (const host of ["localhost:1", "dash.example.com", "[fd00::1]:8", "192.168.1.5:18789"]) expect([host, hostAllowed(rule, host)]).toEqual([host, true]);
    for (const host of [undefined, "example.com", "attacker.test", "192.168.1.6"]) expect([host, hostAllowed(rule, host)]).toEqual([host, false]);
    const wildcard = dashboardHostRule("0.0.0.0", []);
    expect(hostAllowed(wildcard, "0.0.0.0:18789")).toBe(false);
    expect(hostAllowed(dashboardHostRule("0.0.0.0", undefined), undefined)).toBe(true);
  });
});
