/** SPEC §9: a loud warning when the gateway binds beyond loopback, and none on loopback. */
import { bindWarning, isLoopback } from "../../src/gateway/bind-warning";

describe("bindWarning", () => {
  it.each(["127.0.0.1", "::1", "localhost", "127.0.0.5", "127.255.255.254", "LOCALHOST", "[::1]", "::ffff:127.0.0.1"])("%s → no warning", (bind) => {
    expect(isLoopback(bind)).toBe(true);
    expect(bindWarning(bind)).toBeUndefined();
  });

  it.each(["0.0.0.0", "::", "192.168.1.2", "10.0.0.7", "::ffff:192.168.1.2", "gateway.example.com", "128.0.0.1", "127.0.0.1.example.com"])(
    "%s → the warning",
    (bind) => {
      expect(isLoopback(bind)).toBe(false);
      expect(bindWarning(bind)).toBe(
        `WARNING: gateway.bind is ${bind}: the gateway is reachable from other machines. Keep it behind a firewall or a trusted reverse proxy.`,
      );
    },
  );
});
