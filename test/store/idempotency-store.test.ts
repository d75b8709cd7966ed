/**
 * Crash recovery of pending idempotency records (SPEC §7, §12): a record a dead
 * process left `pending` is completed from the run it produced — or, for a
 * fan-out, from its `<key>#<index>` runs — else dropped so a retry executes.
 */
import { createIdempotencyStore, runIdempotencyKey } from "../../src/store/idempotency-store";
import { createSqliteRunStore } from "../../src/store/run-store";
import { actionSource, agentAction, runRecord } from "../helpers/temp-dir";
import { useTempDatabase } from "../helpers/temp-database";

const SCOPE = "/hooks/batch";

describe("IdempotencyStore.resolvePending", () => {
  const t = useTempDatabase();

  const pending = (key: string) =>
    createIdempotencyStore(t.database.db).insertPending({ scope: SCOPE, key, bodyHash: "h", createdAt: 0, expiresAt: Date.now() + 60_000 });
  let n = 0;
  const run = (idempotencyKey: string, sessionKey: string) => {
    n++;
    return runRecord({
      id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
      seq: n,
      action: agentAction({ sessionKey }),
      source: actionSource({ hook: "batch", mappingId: "batch" }),
      idempotencyKey,
    });
  };

  it("a fan-out's pending record is completed with the 202 listing its runs by index, so a retry replays it instead of starting the batch again", () => {
    pending("b-1");
    const key = runIdempotencyKey(SCOPE, "b-1");
    const fanOut = [run(`${key}#2`, "hook:c"), run(`${key}#0`, "hook:a"), run(`${key}#1`, "hook:b")];
    createSqliteRunStore(t.database).insertAll(fanOut);
    const record = createIdempotencyStore(t.database.db).resolvePending(SCOPE, "b-1");
    expect([record?.state, record?.response]).toEqual([
      "complete",
      {
        status: 202,
        body: {
          ok: true,
          runs: [
            { index: 0, runId: fanOut[1]!.id, sessionKey: "hook:a" },
            { index: 1, runId: fanOut[2]!.id, sessionKey: "hook:b" },
            { index: 2, runId: fanOut[0]!.id, sessionKey: "hook:c" },
          ],
          events: 0,
          mapping: "batch",
        },
      },
    ]);
  });

  it("runs of other keys sharing the prefix are not taken: `b-10`, and a single key containing '#'", () => {
    pending("b-1");
    const runs = createSqliteRunStore(t.database);
    runs.insertAll([run(`${runIdempotencyKey(SCOPE, "b-10")}#0`, "hook:x"), run(runIdempotencyKey(SCOPE, "b-1#0"), "hook:y")]);
    expect(createIdempotencyStore(t.database.db).resolvePending(SCOPE, "b-1")).toBeUndefined();
    expect(createIdempotencyStore(t.database.db).get(SCOPE, "b-1")).toBeUndefined();
  });

  it("a single run's pending record still gets that run's 202", () => {
    pending("one");
    const single = run(runIdempotencyKey(SCOPE, "one"), "hook:one");
    createSqliteRunStore(t.database).insert(single);
    expect(createIdempotencyStore(t.database.db).resolvePending(SCOPE, "one")?.response).toEqual({
      status: 202,
      body: { ok: true, runId: single.id, sessionKey: "hook:one", mapping: "batch" },
    });
  });

  it("a pending record without any run is dropped, so a retry executes", () => {
    pending("none");
    expect(createIdempotencyStore(t.database.db).resolvePending(SCOPE, "none")).toBeUndefined();
    expect(createIdempotencyStore(t.database.db).get(SCOPE, "none")).toBeUndefined();
  });
});
