/**
 * createBulkReplayer on a fake ledger: the cap (more than 1,000 matches: 400 bulk_replay_too_large at
 * the preview and at the confirmation, nothing replayed), a confirm older than 15 minutes or answered by
 * another process (a restart) is 409 bulk_replay_expired, and a delivery arriving after the preview is
 * not replayed (it is past the preview's `until`).
 */
import { createBulkReplayer, MAX_BULK_REPLAY } from "../../src/intake/bulk-replay";
import { HookError, hookErrors } from "../../src/core/errors";
import type { DeliverySummary } from "../../src/core/inspection";
import type { LedgerListQuery } from "../../src/store/ledger-rows";

function row(id: string, receivedAt: number): DeliverySummary {
  return {
    id,
    receivedAt: new Date(receivedAt).toISOString(),
    method: "POST",
    url: "/hooks/ci",
    hook: "ci",
    client: "x",
    status: 503,
    latencyMs: 1,
    runIds: [],
  };
}

function setup(n: number) {
  let now = 1_000_000;
  const rows: DeliverySummary[] = Array.from({ length: n }, (_, i) => row(`d${i}`, now - 1000 + i));
  const ledger = {
    flush: () => undefined,
    list: (q: LedgerListQuery) =>
      rows
        .filter((r) => q.until === undefined || Date.parse(r.receivedAt) <= q.until)
        .reverse()
        .slice(0, q.limit),
  };
  const replayed: string[] = [];
  const replay = async (id: string) => {
    replayed.push(id);
    return { deliveryId: `new-${id}`, response: { status: 202, body: { ok: true } } };
  };
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  return { rows, replayed, clock, bulk: createBulkReplayer({ ledger, replay, clock: clock.now }), replay, ledger };
}

const refusal = async (fn: () => Promise<unknown>): Promise<HookError> => {
  try {
    await fn();
  } catch (e) {
    if (e instanceof HookError) return e;
    throw e;
  }
  throw new Error("did not throw");
};

describe("createBulkReplayer", () => {
  it(`more than ${MAX_BULK_REPLAY} matches: 400 bulk_replay_too_large naming the limit`, async () => {
    const { bulk } = setup(MAX_BULK_REPLAY + 1);
    const e = await refusal(() => bulk.preview({ hook: "ci" }));
    expect([e.status, e.code, e.message]).toEqual([
      400,
      "bulk_replay_too_large",
      "The filter matches more than 1000 deliveries; a bulk replay takes at most 1000.",
    ]);
  });

  it(`exactly ${MAX_BULK_REPLAY} matches are previewed and replayed, oldest first`, async () => {
    const { bulk, replayed } = setup(MAX_BULK_REPLAY);
    const p = await bulk.preview({ hook: "ci" });
    expect(p.count).toBe(MAX_BULK_REPLAY);
    expect(p.ids).toEqual(Array.from({ length: 20 }, (_, i) => `d${i}`));
    const r = await bulk.replay({ hook: "ci", confirm: p.confirm }, "cli");
    expect(r.count).toBe(MAX_BULK_REPLAY);
    expect(replayed[0]).toBe("d0");
    expect(replayed[MAX_BULK_REPLAY - 1]).toBe(`d${MAX_BULK_REPLAY - 1}`);
  });

  it("a delivery arriving after the preview is not replayed by its confirmation", async () => {
    const { bulk, rows, replayed, clock } = setup(3);
    const p = await bulk.preview({ hook: "ci" });
    clock.advance(1000);
    rows.push(row("late", clock.now()));
    const r = await bulk.replay({ hook: "ci", confirm: p.confirm }, "cli");
    expect(r.count).toBe(3);
    expect(replayed).toEqual(["d0", "d1", "d2"]);
  });

  it("a confirm older than 15 minutes, or of another process: 409 bulk_replay_expired, nothing replayed", async () => {
    const { bulk, clock, replayed, ledger, replay } = setup(3);
    const p = await bulk.preview({ hook: "ci" });
    const restarted = createBulkReplayer({ ledger, replay, clock: clock.now });
    await expect(restarted.replay({ hook: "ci", confirm: p.confirm }, "cli")).rejects.toMatchObject({ status: 409, code: "bulk_replay_expired" });
    clock.advance(15 * 60_000);
    await expect(bulk.replay({ hook: "ci", confirm: p.confirm }, "cli")).rejects.toMatchObject({
      code: "bulk_replay_expired",
      message: "The preview has expired (valid 15 minutes, in the process that made it).",
    });
    expect(replayed).toEqual([]);
  });

  it("a delivery gone between the check and its replay is reported as 404, the others replayed", async () => {
    const { ledger, clock } = setup(2);
    const bulk = createBulkReplayer({
      ledger,
      clock: clock.now,
      replay: async (id) => {
        if (id === "d0") throw hookErrors.deliveryNotFound();
        return { deliveryId: `new-${id}`, response: { status: 202, body: { ok: true } } };
      },
    });
    const p = await bulk.preview({ hook: "ci" });
    const r = await bulk.replay({ hook: "ci", confirm: p.confirm }, "cli");
    expect(r).toMatchObject({ count: 2, failed: 1 });
    expect(r.replayed).toEqual([
      { replayOf: "d0", status: 404, code: "delivery_not_found" },
      { replayOf: "d1", deliveryId: "new-d1", status: 202 },
    ]);
  });
});
