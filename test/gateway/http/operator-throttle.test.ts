/** The operator throttle: blocks after maxFailures wrong tokens in the window, per client, and never forgets a blocked client. */
import { checkOperatorToken, createOperatorThrottle } from "../../../src/gateway/http/operator-throttle";

const TOKEN = "operator-token-0123456789abcdef";

describe("operator throttle", () => {
  it("blocks after maxFailures in the window, for the rest of the window, per client", () => {
    let t = 0;
    const th = createOperatorThrottle({ maxFailures: 2, windowMs: 10_000, now: () => t });
    th.fail("a");
    expect(th.blockedFor("a")).toBe(0);
    th.fail("a");
    t = 4000;
    expect(th.blockedFor("a")).toBe(6);
    expect(th.blockedFor("b")).toBe(0);
    t = 10_000;
    expect(th.blockedFor("a")).toBe(0);
  });

  it("a right token from a blocked client is refused and does not clear the count; from a free client it does", () => {
    const th = createOperatorThrottle({ maxFailures: 2, now: () => 0 });
    expect(checkOperatorToken(th, "a", "wrong", TOKEN)).toEqual({ kind: "wrong" });
    expect(checkOperatorToken(th, "a", TOKEN, TOKEN)).toEqual({ kind: "ok" });
    expect(checkOperatorToken(th, "a", "wrong", TOKEN)).toEqual({ kind: "wrong" });
    expect(checkOperatorToken(th, "a", "wrong", TOKEN)).toEqual({ kind: "wrong" });
    expect(checkOperatorToken(th, "a", TOKEN, TOKEN)).toEqual({ kind: "blocked", retryAfterSeconds: 900 });
    expect(th.blockedFor("a")).toBe(900);
  });

  it("a blocked client stays blocked while 10,500 other addresses fail (the count table is bounded, the blocked ones are never dropped)", () => {
    const th = createOperatorThrottle({ now: () => 0 });
    for (let i = 0; i < 5; i++) th.fail("victim-of-its-own-guesses");
    for (let i = 0; i < 10_500; i++) th.fail(`10.0.${i >> 8}.${i & 255}`);
    expect(th.blockedFor("victim-of-its-own-guesses")).toBe(900);
  });
});
