/**
 * The refusal log (src/intake/refusal-log.ts): once per client, code and window, the
 * repeats counted in one line when the window ends; a bounded number of clients
 * followed one by one, the rest counted together.
 */
import { createRefusalLog } from "../../src/intake/refusal-log";
import { recordingLogger } from "../helpers/temp-dir";

describe("createRefusalLog", () => {
  let now = 1_000_000;
  let log: ReturnType<typeof recordingLogger>;
  beforeEach(() => {
    jest.useFakeTimers();
    now = 1_000_000;
    log = recordingLogger("http");
  });
  afterEach(() => {
    log.close();
    jest.useRealTimers();
  });
  const refusal = (client: string, status = 401, code = "unauthorized") => ({ client, status, code, hook: "wake", requestId: `r-${client}` });
  const messages = () => log.lines.map((l) => [l.level, l.message, (l.meta as { client?: string }).client, (l.meta as { repeats?: number }).repeats]);

  it("logs the first refusal of a client and code at once, with its fields, and counts the repeats in one line at the window's end", () => {
    const refusals = createRefusalLog({ logger: log.logger, clock: () => now, windowMs: 60_000 });
    for (let i = 0; i < 50; i++) {
      refusals.refused(refusal("203.0.113.7"));
      now += 100;
    }
    expect(log.lines).toHaveLength(1);
    expect(log.lines[0]).toMatchObject({ level: "warn", message: "hook request rejected", meta: { client: "203.0.113.7", requestId: "r-203.0.113.7" } });
    jest.advanceTimersByTime(60_000);
    expect(log.lines[1]).toMatchObject({
      level: "warn",
      message: "hook request rejected again: repeats of the line before, counted",
      meta: { client: "203.0.113.7", status: 401, code: "unauthorized", hook: "wake", repeats: 49, firstAt: new Date(1_000_000).toISOString() },
    });
  });

  it("another code or another client has a line of its own; a 5xx is an error line", () => {
    const refusals = createRefusalLog({ logger: log.logger, clock: () => now });
    refusals.refused(refusal("a"));
    refusals.refused(refusal("a", 429, "too_many_requests"));
    refusals.refused(refusal("b"));
    refusals.refused(refusal("b", 503, "storage_unavailable"));
    refusals.refused(refusal("b", 503, "storage_unavailable"));
    expect(messages()).toEqual([
      ["warn", "hook request rejected", "a", undefined],
      ["warn", "hook request rejected", "a", undefined],
      ["warn", "hook request rejected", "b", undefined],
      ["error", "hook request rejected", "b", undefined],
    ]);
    jest.advanceTimersByTime(60_000);
    expect(messages().slice(4)).toEqual([["error", "hook request rejected again: repeats of the line before, counted", "b", 1]]);
  });

  it("a refusal after the window has ended is logged again, and a window with no repeat writes no count", () => {
    const refusals = createRefusalLog({ logger: log.logger, clock: () => now, windowMs: 60_000 });
    refusals.refused(refusal("a"));
    now += 60_000;
    jest.advanceTimersByTime(60_000);
    refusals.refused(refusal("a"));
    expect(messages()).toEqual([
      ["warn", "hook request rejected", "a", undefined],
      ["warn", "hook request rejected", "a", undefined],
    ]);
  });

  it("follows at most maxClients clients one by one in a window; the others' refusals are one counted line", () => {
    const refusals = createRefusalLog({ logger: log.logger, clock: () => now, maxClients: 3 });
    for (let i = 0; i < 1000; i++) refusals.refused(refusal(`198.51.100.${i % 250}`));
    expect(log.lines).toHaveLength(3);
    jest.advanceTimersByTime(60_000);
    const last = log.lines.at(-1)!;
    expect(last).toMatchObject({
      level: "warn",
      message: "hook requests rejected (or aborted) from more clients than the log follows one by one, counted",
      meta: { clients: 247, repeats: 1000 - 3 - 3 * 3 },
    });
    // The three followed clients' repeats (each sent 4), then that line: 3 + 3 + 1 lines in all.
    expect(log.lines).toHaveLength(7);
  });
});
