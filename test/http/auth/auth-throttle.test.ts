import { createAuthThrottle } from "../../../src/http/auth/auth-throttle";

describe("createAuthThrottle", () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it("throttles the failure after maxFailures within the window", () => {
    const t = createAuthThrottle({ maxFailures: 3, windowSeconds: 60, clock });
    expect([1, 2, 3].map(() => t.recordFailure("a").throttled)).toEqual([false, false, false]);
    expect(t.recordFailure("a")).toEqual({ throttled: true, retryAfterSeconds: 60 });
  });

  it("counts clients separately", () => {
    const t = createAuthThrottle({ maxFailures: 1, windowSeconds: 60, clock });
    t.recordFailure("a");
    expect(t.recordFailure("b").throttled).toBe(false);
    expect(t.recordFailure("a").throttled).toBe(true);
  });

  it("clear() forgets a client's failures", () => {
    const t = createAuthThrottle({ maxFailures: 1, windowSeconds: 60, clock });
    t.recordFailure("a");
    t.clear("a");
    expect(t.recordFailure("a").throttled).toBe(false);
  });

  it("is a sliding window: failures older than the window do not count", () => {
    const t = createAuthThrottle({ maxFailures: 2, windowSeconds: 60, clock });
    t.recordFailure("a");
    now += 30_000;
    t.recordFailure("a");
    now += 30_001; // the first failure has left the window
    expect(t.recordFailure("a").throttled).toBe(false);
    expect(t.recordFailure("a")).toEqual({ throttled: true, retryAfterSeconds: 30 });
  });

  it("stays throttled while failures keep coming", () => {
    const t = createAuthThrottle({ maxFailures: 2, windowSeconds: 10, clock });
    for (let i = 0; i < 3; i++) t.recordFailure("a");
    for (let i = 0; i < 20; i++) {
      now += 1000;
      expect(t.recordFailure("a").throttled).toBe(true);
    }
  });

  it("keeps memory bounded: at most maxClients clients", () => {
    const t = createAuthThrottle({ maxFailures: 5, windowSeconds: 60, clock, maxClients: 100 });
    for (let i = 0; i < 1000; i++) t.recordFailure(`client-${i}`);
    expect(t.size).toBeLessThanOrEqual(100);
    // The most recent client is still tracked.
    for (let i = 0; i < 5; i++) t.recordFailure("client-999");
    expect(t.recordFailure("client-999").throttled).toBe(true);
  });

  it("drops expired clients first when full", () => {
    const t = createAuthThrottle({ maxFailures: 1, windowSeconds: 60, clock, maxClients: 2 });
    t.recordFailure("old");
    now += 61_000;
    t.recordFailure("b");
    t.recordFailure("c");
    expect(t.size).toBe(2);
    expect(t.recordFailure("b").throttled).toBe(true);
  });
});
