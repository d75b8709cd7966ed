import { randomUUID } from "node:crypto";
import { describePostgres } from "../../helpers/postgres";
import { pgFixture } from "./pg-fixture";
import type { LedgerEntry } from "../../../src/store/ledger-rows";
import type { PostgresStore } from "../../../src/store/postgres/pg-store";

function entry(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: randomUUID(),
    receivedAt: Date.now(),
    method: "POST",
    url: "/hooks/github",
    hook: "github",
    client: "10.0.0.1",
    status: 202,
    latencyMs: 2,
    runIds: [],
    headers: { "content-type": "application/json" },
    body: Buffer.from('{"action":"opened","ref":"main"}'),
    ...overrides,
  };
}

async function write(store: PostgresStore, entries: LedgerEntry[]): Promise<void> {
  await Promise.all(entries.map((delivery) => store.accept.stage({ delivery })));
}

describePostgres("Postgres store: the delivery ledger", () => {
  const fx = pgFixture();

  it("lists newest first with the filters of the ledger API, and reads one delivery in full", async () => {
    const store = await fx.open();
    const rows = [entry({ status: 401, refused: true }), entry({ hook: "agent", url: "/hooks/agent" }), entry({ status: 404, code: "not_found" }), entry()];
    await write(store, rows);
    expect((await store.ledger.list({ limit: 10 }))!.map((d) => d.id)).toEqual(rows.map((r) => r.id).reverse());
    expect((await store.ledger.list({ limit: 10, hook: "agent" }))!.map((d) => d.id)).toEqual([rows[1]!.id]);
    expect((await store.ledger.list({ limit: 10, status: [400, 499] }))!.map((d) => d.id)).toEqual([rows[2]!.id, rows[0]!.id]);
    expect((await store.ledger.list({ limit: 10, before: rows[2]!.id }))!.map((d) => d.id)).toEqual([rows[1]!.id, rows[0]!.id]);
    expect(await store.ledger.list({ limit: 10, before: "nope" })).toBeUndefined();
    const refused = await store.ledger.get(rows[0]!.id);
    expect(refused).toMatchObject({ refused: true, bodyStored: false });
    expect(await store.ledger.get(rows[3]!.id)).toMatchObject({
      status: 202,
      body: '{"action":"opened","ref":"main"}',
      bodyStored: true,
      headers: { "content-type": "application/json" },
    });
    expect(await store.ledger.count()).toBe(4);
  });

  it("lists up to `until`, and with `originals` only what a replay can run again (a bulk replay's matches, the SQLite ledger's rule)", async () => {
    const store = await fx.open();
    const t = Date.now() - 10_000;
    const original = entry({ receivedAt: t });
    const rows = [
      original,
      entry({ receivedAt: t + 1, replayOf: original.id }),
      entry({ receivedAt: t + 2, status: 401, refused: true }),
      entry({ receivedAt: t + 3, body: undefined }),
      entry({ receivedAt: t + 5000 }),
    ];
    await write(store, rows);
    const ids = async (q: { until?: number; originals?: boolean }) => (await store.ledger.list({ limit: 10, ...q }))!.map((d) => d.id);
    expect(await ids({ until: t + 3 })).toEqual(
      rows
        .slice(0, 4)
        .map((r) => r.id)
        .reverse(),
    );
    expect(await ids({ originals: true })).toEqual([rows[4]!.id, original.id]);
    expect(await ids({ until: t + 3, originals: true })).toEqual([original.id]);
  });

  it("finds deliveries by the words of their hook, event, status and body once indexed (prefixes too), and takes no query syntax", async () => {
    const store = await fx.open();
    const rows = [
      entry({ event: "pull_request.opened" }),
      entry({ event: "push", body: Buffer.from("deploy to production") }),
      entry({ hook: "stripe", status: 400 }),
    ];
    await write(store, rows);
    expect(await store.ledger.index()).toBe(3);
    const ids = async (search: string) => (await store.ledger.list({ limit: 10, search }))!.map((d) => d.id);
    expect(await ids("pull")).toEqual([rows[0]!.id]);
    expect(await ids("pull_request")).toEqual([rows[0]!.id]);
    expect(await ids("prod deploy")).toEqual([rows[1]!.id]);
    expect(await ids("stripe 400")).toEqual([rows[2]!.id]);
    expect(await ids("github")).toEqual([rows[1]!.id, rows[0]!.id]);
    expect(await ids("a|b & !c <-> :*")).toEqual([]);
  });

  it("counts a throttled client's repeated 429s in its open row", async () => {
    const store = await fx.open();
    const first = entry({ status: 429, refused: true, client: "9.9.9.9" });
    const r = await store.accept.stage({ delivery: first });
    const seq = r.kind === "stored" ? r.deliverySeq! : NaN;
    const folds = await Promise.all([1, 2, 3].map((i) => store.accept.stage({ fold: { seq, client: "9.9.9.9", at: first.receivedAt + i } })));
    expect(folds.map((f) => f.kind === "stored" && f.folded)).toEqual([true, true, true]);
    expect(await store.ledger.get(first.id)).toMatchObject({ count: 4, lastAt: new Date(first.receivedAt + 3).toISOString() });
  });

  it("prunes by age, then refused rows beyond their share, then the oldest beyond maxEntries, in small statements", async () => {
    const store = await fx.open();
    const old = Date.now() - 8 * 86_400_000;
    await write(store, [entry({ receivedAt: old }), entry({ receivedAt: old })]);
    const refused = Array.from({ length: 4 }, () => entry({ status: 401, refused: true }));
    const kept = Array.from({ length: 12 }, () => entry());
    await write(store, [...refused, ...kept]);
    // maxEntries 10: a share of 1 refused row; 16 rows after the age prune → 3 refused go for the share, then the last refused and 2 authenticated ones.
    expect(await store.ledger.prune({ retentionDays: 7, maxEntries: 10, now: Date.now(), batch: 2 })).toBe(8);
    const left = (await store.ledger.list({ limit: 100 }))!.map((d) => d.id);
    expect(left).toEqual(
      kept
        .slice(2)
        .map((k) => k.id)
        .reverse(),
    );
  });
});
