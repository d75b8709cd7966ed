/**
 * Regression (issue 35 finding 7): every refused request wrote a log line, without
 * bound — 5,000 requests without a token from one address (19 × 401, then the auth
 * throttle's 429) wrote 5,000 warning lines, 1.66 MB: about 1 GB an hour from one
 * client into an often unrotated stderr. Now a client's refusals with one code are
 * logged once per window, and their repeats in one counted line when it ends
 * (src/intake/refusal-log.ts), as the ledger folds them into one counted row.
 *
 * The whole plugin (router → pipeline → logs through the plugin's logger) on the fake host.
 */
import request from "supertest";
import { startPluginApp, type PluginApp } from "../helpers/plugin-app";
import { REFUSAL_LOG_WINDOW_MS } from "../../src/intake/refusal-log";

describe("refused requests wrote a log line each", () => {
  let h: PluginApp;
  beforeEach(async () => {
    jest.useFakeTimers({ doNotFake: ["nextTick", "setImmediate", "queueMicrotask"] });
    h = await startPluginApp({});
  });
  afterEach(async () => {
    jest.useRealTimers();
    await h.close();
  });

  it("300 requests without a token from one client: one line per code, then one counted line each when the window ends", async () => {
    const statuses: Record<number, number> = {};
    for (let i = 0; i < 300; i++) {
      const r = await request(h.app).post("/hooks/wake").send({ text: "x", mode: "now" });
      statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    }
    expect(statuses[401]).toBeGreaterThan(0);
    expect(statuses[429]).toBeGreaterThan(0);
    expect(statuses[401]! + statuses[429]!).toBe(300);
    const refusalLines = () => h.host.logs.filter((l) => l.message.startsWith("hook request rejected"));
    expect(refusalLines().map((l) => [l.message, (l.meta as { code: string }).code])).toEqual([
      ["hook request rejected", "unauthorized"],
      ["hook request rejected", "too_many_requests"],
    ]);

    jest.advanceTimersByTime(REFUSAL_LOG_WINDOW_MS);
    const counted = refusalLines().slice(2);
    expect(counted.map((l) => l.message)).toEqual([
      "hook request rejected again: repeats of the line before, counted",
      "hook request rejected again: repeats of the line before, counted",
    ]);
    expect(counted.map((l) => (l.meta as { code: string; repeats: number }).repeats)).toEqual([statuses[401]! - 1, statuses[429]! - 1]);
    expect(counted.every((l) => l.level === "warn")).toBe(true);
  });
});
