import { randomUUID } from "node:crypto";
import { describePostgres } from "../../helpers/postgres";
import { pgFixture } from "./pg-fixture";

describePostgres("Postgres store: wakes for the consumer's main session", () => {
  const fx = pgFixture();
  const wake = (text: string) => ({ id: randomUUID(), event: { text, mode: "now" }, createdAt: Date.now() });

  it("hands wakes in arrival order to one consumer at a time, and again after a lease that was not acknowledged", async () => {
    const store = await fx.open();
    const other = await fx.open(store.url);
    await Promise.all(["w1", "w2", "w3"].map((t) => store.accept.stage({ wakes: [wake(t)] })));
    const taken = await store.wakes.take({ owner: "c1", leaseMs: 200, limit: 2 });
    expect(taken.map((w) => w.event.text)).toEqual(["w1", "w2"]);
    expect((await other.wakes.take({ owner: "c2", leaseMs: 30_000, limit: 10 })).map((w) => w.event.text)).toEqual(["w3"]);
    await new Promise((r) => setTimeout(r, 300));
    // c1 died before acknowledging: its wakes are handed again.
    const again = await other.wakes.take({ owner: "c2", leaseMs: 30_000, limit: 10 });
    expect(again.map((w) => w.id)).toEqual(taken.map((w) => w.id));
    await other.wakes.ack([...again, ...taken].map((w) => w.id));
    expect(await store.wakes.pending()).toBe(1);
  });
});
