import { createAuthThrottle } from "../../src/host-contract/auth-throttle";

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

describe("a throttled client is never forgotten (regression: failures from 12,000 addresses let a throttled client back to 401)", () => {
  let now = 0;
  const clock = () => now;
  beforeEach(() => {
    now = 1_000_000;
  });

  it("12,000 other clients failing once each do not evict a throttled client", () => {
    const t = createAuthThrottle({ maxFailures: 20, windowSeconds: 60, clock });
    for (let i = 0; i < 21; i++) t.recordFailure("victim");
    expect(t.peek("victim").throttled).toBe(true);
    for (let i = 0; i < 12_000; i++) {
      now += 1;
      expect(t.recordFailure(`10.0.${i >> 8}.${i & 255}`).throttled).toBe(false);
    }
    expect(t.size).toBeLessThanOrEqual(10_001);
    expect(t.recordFailure("victim").throttled).toBe(true);
  });

  it("a client that was still counting may be dropped for room (least recently failed first)", () => {
    const t = createAuthThrottle({ maxFailures: 2, windowSeconds: 60, clock, maxClients: 3 });
    t.recordFailure("a");
    t.recordFailure("a");
    for (const c of ["b", "c", "d"]) t.recordFailure(c);
    expect(t.size).toBe(3);
    expect(t.recordFailure("a").throttled).toBe(false);
  });

  it("when every throttled slot is taken by a client still throttled, the throttle fails closed for everyone", () => {
    const t = createAuthThrottle({ maxFailures: 1, windowSeconds: 60, clock, maxThrottledClients: 2 });
    for (const c of ["x", "y"]) {
      t.recordFailure(c);
      expect(t.recordFailure(c).throttled).toBe(true);
    }
    now += 10_000;
    expect(t.recordFailure("fresh")).toEqual({ throttled: true, retryAfterSeconds: 50 });
    expect(t.recordFailure("z").throttled).toBe(true);
    expect(t.recordFailure("z").throttled).toBe(true);
    // A correct token still frees a slot, and once the windows end the throttle is open again.
    t.clear("x");
    expect(t.recordFailure("other").throttled).toBe(false);
    now += 60_000;
    expect(t.recordFailure("late").throttled).toBe(false);
  });

  it("peek reports a throttled client without recording a failure", () => {
    const t = createAuthThrottle({ maxFailures: 1, windowSeconds: 60, clock });
    expect(t.peek("a")).toEqual({ throttled: false, retryAfterSeconds: 1 });
    t.recordFailure("a");
    expect(t.peek("a").throttled).toBe(false);
    t.recordFailure("a");
    expect(t.peek("a")).toEqual({ throttled: true, retryAfterSeconds: 60 });
    now += 60_000;
    expect(t.peek("a").throttled).toBe(false);
  });
});
