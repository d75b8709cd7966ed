/** The dashboard's small state machines and sums: sessions expire, the overview's per-minute series. */
import { createUiSessionStore } from "../../../src/gateway/ui/ui-sessions";
import { overviewSeries, percentile, runsByOutcome } from "../../../src/inspector/overview-stats";
import { delivery } from "../../helpers/fake-inspector";
import type { RunStatus } from "../../../src/core/runs";

describe("dashboard sessions", () => {
  it("a session is valid until its expiry, then gone", () => {
    let t = 1000;
    const store = createUiSessionStore({ ttlMs: 500, now: () => t });
    const s = store.create();
    t = 1499;
    expect(store.get(s.id)).toBe(s);
    t = 1500;
    expect(store.get(s.id)).toBeUndefined();
    expect(store.size()).toBe(0);
  });

  it("at most maxSessions live at once: the oldest goes", () => {
    let n = 0;
    const store = createUiSessionStore({ maxSessions: 2, randomId: () => `id-${++n}` });
    const a = store.create();
    store.create();
    store.create();
    expect(store.get(a.id)).toBeUndefined();
    expect(store.size()).toBe(2);
  });
});

describe("overview series", () => {
  it("nearest-rank percentiles", () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 99)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50)).toBe(5);
    expect(percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 99)).toBe(10);
  });

  it("counts per minute by status class with p50/p99 latency; outside the window is left out", () => {
    const now = Date.parse("2026-11-22T10:02:30.000Z");
    const s = overviewSeries(
      [
        delivery({ receivedAt: "2026-11-22T10:02:10.000Z", status: 202, latencyMs: 4 }),
        delivery({ receivedAt: "2026-11-22T10:02:20.000Z", status: 401, latencyMs: 2 }),
        delivery({ receivedAt: "2026-11-22T10:00:59.000Z", status: 500, latencyMs: 9 }),
        delivery({ receivedAt: "2026-11-22T09:59:59.000Z", status: 202, latencyMs: 1 }),
      ],
      now,
      3,
    );
    expect(s.minutes).toEqual([
      Date.parse("2026-11-22T10:00:00Z") / 1000,
      Date.parse("2026-11-22T10:01:00Z") / 1000,
      Date.parse("2026-11-22T10:02:00Z") / 1000,
    ]);
    expect(s.byStatus).toEqual({ "2xx": [0, 0, 1], "3xx": [0, 0, 0], "4xx": [0, 0, 1], "5xx": [1, 0, 0] });
    expect(s.p50).toEqual([9, null, 2]);
    expect(s.p99).toEqual([9, null, 4]);
    expect(s.total).toBe(3);
  });

  it("a request that waited for its run (Prefer: wait) counts as a request but stays out of the accept latency, counted apart", () => {
    const now = Date.parse("2026-11-22T10:00:30.000Z");
    const s = overviewSeries(
      [
        delivery({ receivedAt: "2026-11-22T10:00:10.000Z", status: 200, latencyMs: 9000, waited: true }),
        delivery({ receivedAt: "2026-11-22T10:00:20.000Z", status: 202, latencyMs: 3 }),
      ],
      now,
      1,
    );
    expect(s.byStatus["2xx"]).toEqual([2]);
    expect([s.p50, s.p99]).toEqual([[3], [3]]);
    expect([s.total, s.waited]).toEqual([2, 1]);
  });

  it("runs by outcome, most frequent first", () => {
    const run = (status: RunStatus) => ({ id: status, status, name: "n", sessionKey: "s", createdAt: "" });
    expect(runsByOutcome([run("failed"), run("succeeded"), run("succeeded")])).toEqual([
      ["succeeded", 2],
      ["failed", 1],
    ]);
  });
});
