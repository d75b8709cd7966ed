/**
 * New mail is fetched in chunks whose sources fit a byte budget: the budget rule itself, and
 * the watcher against a real IMAP server (dovecot) with a backlog of large messages.
 */
import { takeWithinBudget } from "../../../src/mail/watcher/fetch-budget";
import { openImapSession, type ImapSession, type OpenImapSessionOptions } from "../../../src/mail/watcher/imap-session";
import { useMailFixture } from "../helpers/mail-fixture";
import { testWatcher } from "../helpers/test-watcher";
import { largeMessage } from "../helpers/messages";

describe("takeWithinBudget", () => {
  const sizes = new Map([
    [1, 40],
    [2, 40],
    [3, 40],
    [4, 500],
  ]);
  test("takes the longest prefix that fits, counting each message at most its fetch bound", () => {
    expect(takeWithinBudget([1, 2, 3], sizes, 100, 90)).toEqual([1, 2]);
    expect(takeWithinBudget([1, 2, 3], sizes, 100, 120)).toEqual([1, 2, 3]);
    expect(takeWithinBudget([1, 4, 2], sizes, 100, 150)).toEqual([1, 4]);
  });
  test("a message larger than the budget is still taken on its own, and a removed one (no size) counts nothing", () => {
    expect(takeWithinBudget([4, 1], sizes, 1000, 100)).toEqual([4]);
    expect(takeWithinBudget([9, 1, 2], sizes, 100, 80)).toEqual([9, 1, 2]);
    expect(takeWithinBudget([], sizes, 100, 80)).toEqual([]);
  });
});

describe("the watcher with a backlog of large messages", () => {
  const fx = useMailFixture("iw-mail-state-");

  test("a backlog of large messages is fetched in parts within the fetch budget, not all of maxMessages at once, and every message is delivered in order", async () => {
    const fetched: number[] = [];
    const openSession = async (o: OpenImapSessionOptions): Promise<ImapSession> => {
      const real = await openImapSession(o);
      const fetchSources: ImapSession["fetchSources"] = async (uids, max) => {
        const sources = await real.fetchSources(uids, max);
        fetched.push(sources.reduce((n, s) => n + s.source.length, 0));
        return sources;
      };
      return new Proxy(real, { get: (target, prop) => (prop === "fetchSources" ? fetchSources : Reflect.get(target, prop)) });
    };
    const budget = 64 * 1024;
    const { w } = testWatcher(fx, { token: "fetch-budget-token-0123456789abcd", mail: { maxMessages: 10 }, extra: { openSession, fetchBudgetBytes: budget } });
    await w.runOnce();
    const messages = Array.from({ length: 6 }, (_, i) => largeMessage(`big ${i}`, 400)); // about 28 KB each
    let lastUid = 0;
    for (const m of messages) lastUid = await fx.imap.append(m.raw);

    await expect(w.runOnce()).resolves.toMatchObject({ delivered: 6, lastUid });
    expect(fx.deliveredIds()).toEqual(messages.map((m) => m.id));
    expect(fetched.length).toBeGreaterThanOrEqual(3);
    for (const bytes of fetched) expect(bytes).toBeLessThanOrEqual(budget);
  });
});
