import { describePostgres } from "../../helpers/postgres";
import { pgFixture, runInsert } from "./pg-fixture";
import type { PostgresStore } from "../../../src/store/postgres/pg-store";
import type { RunRecord } from "../../../src/core/runs";

const now = () => new Date().toISOString();

/** Stages `n` runs of each session key, interleaved, in one turn; returns them by session. */
async function queue(store: PostgresStore, sessions: string[], n: number): Promise<Map<string, string[]>> {
  const bySession = new Map<string, string[]>(sessions.map((s) => [s, []]));
  const writes = [];
  for (let i = 0; i < n; i++) {
    for (const s of sessions) {
      const run = runInsert({ sessionKey: s });
      bySession.get(s)!.push(run.id);
      writes.push(store.accept.stage({ runs: [run] }));
    }
  }
  await Promise.all(writes);
  return bySession;
}

describePostgres("Postgres store: claiming runs", () => {
  const fx = pgFixture();

  it("claims the oldest queued run of each session, one at a time per session", async () => {
    const store = await fx.open();
    const order = await queue(store, ["hook:a", "hook:b"], 3);
    const first = await store.runs.claim({ owner: "c1", leaseMs: 30_000, limit: 10 });
    expect(first.map((r) => r.id)).toEqual([order.get("hook:a")![0], order.get("hook:b")![0]]);
    expect(first.map((r) => [r.status, r.attempts])).toEqual([
      ["running", 1],
      ["running", 1],
    ]);
    // Nothing more while both sessions have a run running.
    expect(await store.runs.claim({ owner: "c1", leaseMs: 30_000, limit: 10 })).toEqual([]);
    expect(await store.runs.finish(first[0]!.id, "c1", { status: "succeeded", finishedAt: now(), summary: "done" })).toBe(true);
    const next = await store.runs.claim({ owner: "c1", leaseMs: 30_000, limit: 10 });
    expect(next.map((r) => r.id)).toEqual([order.get("hook:a")![1]]);
  });

  it("consumers claiming at the same time never run two runs of a session at once, and keep each session's order", async () => {
    const store = await fx.open();
    const consumers = await Promise.all([fx.open(store.url, { poolMax: 2 }), fx.open(store.url, { poolMax: 2 }), fx.open(store.url, { poolMax: 2 })]);
    const sessions = ["hook:a", "hook:b", "hook:c", "hook:d"];
    const order = await queue(store, sessions, 15);
    const ran = new Map<string, string[]>(sessions.map((s) => [s, []]));
    const running = new Map<string, string>();
    let overlaps = 0;
    const work = async (c: PostgresStore, owner: string): Promise<void> => {
      for (let idle = 0; idle < 40;) {
        const claimed = await c.runs.claim({ owner, leaseMs: 30_000, limit: 2 });
        if (claimed.length === 0) {
          idle++;
          await new Promise((r) => setTimeout(r, 5));
          continue;
        }
        idle = 0;
        await Promise.all(
          claimed.map(async (run: RunRecord) => {
            const key = run.action.sessionKey;
            if (running.has(key)) overlaps++;
            running.set(key, run.id);
            ran.get(key)!.push(run.id);
            await new Promise((r) => setTimeout(r, 2));
            running.delete(key);
            expect(await c.runs.finish(run.id, owner, { status: "succeeded", finishedAt: now() })).toBe(true);
          }),
        );
      }
    };
    await Promise.all(consumers.map((c, i) => work(c, `c${i}`)));
    expect(overlaps).toBe(0);
    expect(ran).toEqual(order);
    expect(await store.runs.countQueued()).toBe(0);
  });

  it("a run whose consumer died is taken over after its lease; the dead consumer can no longer write it", async () => {
    const store = await fx.open();
    const [run] = [...(await queue(store, ["hook:a"], 2)).get("hook:a")!];
    const [claimed] = await store.runs.claim({ owner: "dead", leaseMs: 200, limit: 1 });
    expect(claimed!.id).toBe(run);
    expect(await store.runs.reclaimExpired({ owner: "alive", leaseMs: 30_000, limit: 10 })).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    const taken = await store.runs.reclaimExpired({ owner: "alive", leaseMs: 30_000, limit: 10 });
    expect(taken.map(({ run: r, previousOwner }) => [r.id, r.status, r.attempts, previousOwner])).toEqual([[run, "running", 1, "dead"]]);
    // Still running under the new owner: no second run of the session meanwhile.
    expect(await store.runs.claim({ owner: "alive", leaseMs: 30_000, limit: 10 })).toEqual([]);
    expect(await store.runs.finish(run!, "dead", { status: "succeeded", finishedAt: now() })).toBe(false);
    expect(await store.runs.renew("dead", [run!], 30_000)).toEqual([]);
    // retryInterrupted: queued again as the oldest of its session, run again before the next.
    expect(await store.runs.requeue(run!, "alive")).toBe(true);
    const again = await store.runs.claim({ owner: "alive", leaseMs: 30_000, limit: 10 });
    expect(again.map((r) => [r.id, r.attempts])).toEqual([[run, 2]]);
  });

  it("the database itself refuses a second running run of one session", async () => {
    const store = await fx.open();
    const ids = (await queue(store, ["hook:a"], 2)).get("hook:a")!;
    await store.runs.claim({ owner: "c1", leaseMs: 30_000, limit: 1 });
    await expect(store.runs.update(ids[1]!, { status: "running" })).rejects.toMatchObject({ code: "23505" });
  });

  it("renews only the leases it holds, and a terminal status ends the lease", async () => {
    const store = await fx.open();
    await queue(store, ["hook:a", "hook:b"], 1);
    const claimed = await store.runs.claim({ owner: "c1", leaseMs: 30_000, limit: 10 });
    const ids = claimed.map((r) => r.id);
    expect((await store.runs.renew("c1", ids, 60_000)).sort()).toEqual([...ids].sort());
    await store.runs.finish(ids[0]!, "c1", { status: "failed", finishedAt: now(), error: "boom" });
    expect(await store.runs.renew("c1", ids, 60_000)).toEqual([ids[1]]);
    expect(await fx.cluster().psql(`SELECT count(*) FROM inbound_webhooks.runs WHERE lease_owner IS NOT NULL`, store.url.split("/").pop())).toBe("1\n");
  });

  it("lists and counts runs for operators, and prunes finished ones in small batches", async () => {
    const store = await fx.open();
    await queue(store, ["hook:a", "hook:b", "hook:c"], 4);
    for (;;) {
      const claimed = await store.runs.claim({ owner: "c", leaseMs: 30_000, limit: 10 });
      if (claimed.length === 0) break;
      for (const r of claimed) await store.runs.finish(r.id, "c", { status: "succeeded", finishedAt: now(), summary: `s ${r.seq}` });
    }
    expect((await store.runs.list({ limit: 5 })).map((v) => v.status)).toEqual(Array(5).fill("succeeded"));
    expect(await store.runs.counts(Date.now() - 60_000)).toEqual({ queued: 0, running: 0, failedSince: 0 });
    expect(await store.runs.prune({ retentionDays: 7, maxFinished: 5, now: Date.now(), batch: 2 })).toBe(7);
    expect((await store.runs.list({ limit: 100 })).length).toBe(5);
    expect(await store.runs.prune({ retentionDays: 0, maxFinished: 5, now: Date.now() + 1000, batch: 2 })).toBe(5);
  });
});
