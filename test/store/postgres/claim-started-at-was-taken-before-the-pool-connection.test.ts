/**
 * Regression (issue 34): the run consumer took a claimed run's `startedAt` from its own
 * clock when it called `claim`, before the claim waited for a pool connection, so on a busy
 * pool the run's `started_at` was earlier than the moment it was claimed (here by the 300 ms
 * the pool was held). Now the claim's SQL stamps it with the database's clock at the claim
 * (pg-runs.ts), in the form the column always held (ISO-8601 UTC, milliseconds, `Z`).
 */
import { randomUUID } from "node:crypto";
import { describePostgres } from "../../helpers/postgres";
import { until } from "../../helpers/until";
import { createFakeHost } from "../../helpers/fake-host";
import { pgFixture, runInsert } from "./pg-fixture";
import { createRunConsumer } from "../../../src/runs/run-consumer";
import { createRunExecutor } from "../../../src/runs/executor";
import { createPluginEmitter } from "../../../src/core/events";

const POOL_MAX = 2;
/** How long every connection of the pool stays busy while the claim waits for one. */
const HELD_MS = 300;

describePostgres("Postgres store: a claimed run's started_at", () => {
  const fx = pgFixture();

  it("regression: started_at was taken before the claim waited for a pool connection (300 ms early on a busy pool); now it is the database's clock at the claim", async () => {
    const store = await fx.open(undefined, { poolMax: POOL_MAX });
    let turnAt = 0;
    const host = createFakeHost({
      runTurn: async () => {
        turnAt = Date.now();
        return { status: "ok", reply: "done" };
      },
    });
    const emitter = createPluginEmitter();
    const consumer = createRunConsumer({
      runs: store.runs,
      wakes: store.wakes,
      executor: createRunExecutor({ runtime: host.api.runtime, logger: fx.logs.logger, emitter }),
      runtime: host.api.runtime,
      owner: `c-${randomUUID()}`,
      leaseMs: 30_000,
      maxConcurrent: 1,
      retryInterrupted: false,
      logger: fx.logs.logger,
      emitter,
    });
    try {
      await consumer.start();
      const run = runInsert({ sessionKey: "hook:busy", wakeMode: "next-heartbeat" });
      await store.accept.stage({ runs: [run] });

      // Every connection of the pool busy, until `free()`.
      let free!: () => void;
      const freed = new Promise<void>((r) => (free = r));
      let holding = 0;
      const held = Array.from({ length: POOL_MAX }, () =>
        store.pool.transaction(async (client) => {
          await client.query("SELECT 1");
          holding++;
          await freed;
        }),
      );
      await until(() => holding === POOL_MAX, "every pool connection held");

      consumer.wake("runs");
      await until(() => store.pool.stats().waiting >= 1, "the claim waiting for a connection");
      // The condition under test, not a wait for async work: the pool stays busy this long.
      await new Promise((r) => setTimeout(r, HELD_MS));
      const releasedAt = Date.now();
      free();
      await Promise.all(held);

      await until(async () => (await store.runs.get(run.id))?.status === "succeeded", "the run succeeded");
      const startedAt = (await store.runs.get(run.id))!.startedAt!;
      expect(startedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      // Claimed once the pool let it go, before its turn ran (the cluster is on this machine: one clock).
      expect(Date.parse(startedAt)).toBeGreaterThanOrEqual(releasedAt);
      expect(Date.parse(startedAt)).toBeLessThanOrEqual(turnAt);
    } finally {
      await consumer.stop(0);
    }
  });
});
