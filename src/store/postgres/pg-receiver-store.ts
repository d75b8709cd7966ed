/**
 * What a receiver writes into the Postgres store (the ReceiverStore port,
 * src/core/store-port.ts): one request's runs, or one wake, through the group commit
 * (pg-accept.ts: one statement per turn for every request of it), resolved once
 * committed — the 2xx still means stored.
 *
 * @example
 *   const receiver = pgReceiverStore(store);
 *   const [run] = await receiver.storeRuns([newRun]); // run.seq given by Postgres
 */
import { randomUUID } from "node:crypto";
import type { ReceiverStore } from "../../core/store-port";
import type { PostgresStore } from "./pg-store";

export function pgReceiverStore(store: PostgresStore, clock: () => number = Date.now): ReceiverStore {
  return {
    async storeRuns(runs) {
      const result = await store.accept.stage({
        runs: runs.map((r) => ({
          id: r.id,
          action: r.action,
          source: r.source,
          createdAt: r.createdAt,
          ...(r.idempotencyKey !== undefined ? { idempotencyKey: r.idempotencyKey } : {}),
        })),
      });
      if (result.kind !== "stored") throw new Error("runs without an idempotency record cannot conflict");
      const seqs = new Map(result.runs.map((r) => [r.id, r.seq]));
      return runs.map((r) => ({ ...r, seq: seqs.get(r.id)! }));
    },
    async storeWake(event) {
      await store.accept.stage({ wakes: [{ id: randomUUID(), event, createdAt: clock() }] });
    },
    get: (id) => store.runs.get(id),
    countQueued: () => store.runs.countQueued(),
  };
}
