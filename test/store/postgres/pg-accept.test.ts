import { randomUUID } from "node:crypto";
import { describePostgres } from "../../helpers/postgres";
import { pgFixture, runInsert } from "./pg-fixture";
import { until } from "../../helpers/until";
import type { PgIdempotencyInsert } from "../../../src/store/postgres/pg-accept";
import type { LedgerEntry } from "../../../src/store/ledger-rows";

const key = (k: string, overrides: Partial<PgIdempotencyInsert> = {}): PgIdempotencyInsert => ({
  scope: "agent",
  key: k,
  bodyHash: "h1",
  response: { status: 202, body: { ok: true, runId: "r" } },
  createdAt: 1_000,
  expiresAt: 1_000 + 86_400_000,
  ...overrides,
});

function delivery(overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    id: randomUUID(),
    receivedAt: Date.now(),
    method: "POST",
    url: "/hooks/agent",
    hook: "agent",
    client: "127.0.0.1",
    status: 202,
    latencyMs: 1,
    runIds: [],
    headers: { "content-type": "application/json" },
    body: Buffer.from('{"message":"hi"}'),
    ...overrides,
  };
}

describePostgres("Postgres store: the group commit", () => {
  const fx = pgFixture();

  it("stores the requests of one turn with one statement, runs in the order they were staged", async () => {
    const store = await fx.open();
    const runs = Array.from({ length: 50 }, (_, i) => runInsert({ sessionKey: `hook:s${i % 3}` }));
    const before = store.accept.statements;
    const results = await Promise.all(runs.map((run) => store.accept.stage({ runs: [run], delivery: delivery({ runIds: [run.id] }) })));
    expect(store.accept.statements - before).toBe(1);
    const seqs = results.map((r) => (r.kind === "stored" ? r.runs[0]!.seq : NaN));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(await store.runs.countQueued()).toBe(50);
    expect(await store.ledger.count()).toBe(50);
  });

  it("a retry that reaches another receiver gets the first one's answer and stores nothing", async () => {
    const a = await fx.open();
    const b = await fx.open(a.url);
    const first = runInsert();
    const stored = await a.accept.stage({ idempotency: key("evt-1", { response: { status: 202, body: { ok: true, runId: first.id } } }), runs: [first] });
    expect(stored.kind).toBe("stored");
    const retry = await b.accept.stage({ idempotency: key("evt-1", { createdAt: 2_000 }), runs: [runInsert()], delivery: delivery() });
    expect(retry).toEqual({
      kind: "conflict",
      record: expect.objectContaining({
        scope: "agent",
        key: "evt-1",
        bodyHash: "h1",
        state: "complete",
        response: { status: 202, body: { ok: true, runId: first.id } },
      }),
    });
    expect(await b.runs.countQueued()).toBe(1);
    expect(await b.ledger.count()).toBe(0);
  });

  it("the same key sent to two receivers at the same moment is stored once", async () => {
    const a = await fx.open();
    const b = await fx.open(a.url);
    for (let round = 0; round < 20; round++) {
      const results = await Promise.all([a, b].map((s) => s.accept.stage({ idempotency: key(`race-${round}`), runs: [runInsert()] })));
      expect(results.map((r) => r.kind).sort()).toEqual(["conflict", "stored"]);
    }
    expect(await a.runs.countQueued()).toBe(20);
  });

  it("two requests of one turn with the same key: the second gets the first's answer", async () => {
    const store = await fx.open();
    const [one, two] = await Promise.all([
      store.accept.stage({ idempotency: key("same"), runs: [runInsert()] }),
      store.accept.stage({ idempotency: key("same", { bodyHash: "h2" }), runs: [runInsert()] }),
    ]);
    expect(one.kind).toBe("stored");
    expect(two).toEqual({ kind: "conflict", record: expect.objectContaining({ bodyHash: "h1" }) });
    expect(await store.runs.countQueued()).toBe(1);
  });

  it("the keyed reads of one turn are one statement (was one per keyed request): each gets its own record, none when expired or missing", async () => {
    const store = await fx.open();
    await store.accept.stage({ idempotency: key("kept"), runs: [runInsert()] });
    await store.accept.stage({ idempotency: key("short", { expiresAt: 5_000 }), runs: [runInsert()] });
    const before = store.idempotency.statements;
    const [kept, missing, live, expired, other] = await Promise.all([
      store.idempotency.get("agent", "kept", 2_000),
      store.idempotency.get("agent", "missing", 2_000),
      store.idempotency.get("agent", "short", 4_000),
      store.idempotency.get("agent", "short", 6_000),
      store.idempotency.get("wake", "kept", 2_000),
    ]);
    expect(store.idempotency.statements - before).toBe(1);
    expect([kept?.key, missing, live?.key, expired, other]).toEqual(["kept", undefined, "short", undefined, undefined]);
    // A later turn is a statement of its own.
    expect((await store.idempotency.get("agent", "kept", 2_000))?.bodyHash).toBe("h1");
    expect(store.idempotency.statements - before).toBe(2);
  });

  it("a key used again after it expired starts afresh", async () => {
    const store = await fx.open();
    await store.accept.stage({ idempotency: key("old", { expiresAt: 5_000 }), runs: [runInsert()] });
    const again = await store.accept.stage({ idempotency: key("old", { createdAt: 5_000, expiresAt: 90_000, bodyHash: "new" }), runs: [runInsert()] });
    expect(again.kind).toBe("stored");
    expect(await store.idempotency.get("agent", "old", 6_000)).toEqual(expect.objectContaining({ bodyHash: "new", expiresAt: 90_000 }));
    expect(await store.runs.countQueued()).toBe(2);
  });

  it("a request Postgres refuses fails alone; the others of its turn are stored", async () => {
    const store = await fx.open();
    const taken = runInsert();
    await store.accept.stage({ runs: [taken] });
    const others = [runInsert(), runInsert()];
    const results = await Promise.allSettled([
      store.accept.stage({ runs: [others[0]!] }),
      store.accept.stage({ runs: [{ ...runInsert(), id: taken.id }] }),
      store.accept.stage({ runs: [others[1]!] }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect((results[1] as PromiseRejectedResult).reason).toMatchObject({ code: "23505" });
    expect(await store.runs.countQueued()).toBe(3);
  });

  it("keeps text with U+0000 a sender put in (JSON columns exactly, plain columns as U+FFFD) and bodies byte for byte", async () => {
    const store = await fx.open();
    const run = runInsert({ message: "a\u0000b" });
    const body = Buffer.from([0x00, 0xff, 0x7b]);
    const d = delivery({ event: "push\u0000x", idempotencyKey: "k\u0000", body, runIds: [run.id] });
    await store.accept.stage({ idempotency: key("k\u0000"), runs: [run], delivery: d });
    expect((await store.runs.get(run.id))?.action.message).toBe("a\u0000b");
    const stored = await store.ledger.get(d.id);
    expect(stored?.event).toBe("push\uFFFDx");
    expect(stored?.rawBody).toEqual(body);
    expect(stored?.bodyBase64).toBe(body.toString("base64"));
    expect(await store.idempotency.get("agent", "k\u0000", 2_000)).toBeDefined();
  });

  it("stores wakes with the request and notifies the consumers at the commit", async () => {
    const store = await fx.open();
    const heard: string[] = [];
    const listener = store.listen((why) => heard.push(why), 60_000);
    await until(() => listener.listening, "the LISTEN connection");
    await store.accept.stage({ wakes: [{ id: randomUUID(), event: { text: "w1", mode: "now" }, createdAt: 1 }] });
    await until(() => heard.includes("wakes"), "a wakes notification");
    await store.accept.stage({ runs: [runInsert()] });
    await until(() => heard.includes("runs"), "a runs notification");
    expect(await store.wakes.pending()).toBe(1);
  });
});
