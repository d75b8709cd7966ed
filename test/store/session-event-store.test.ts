/**
 * The main-session outbox's table (migration 9): events kept from before their 2xx until the host
 * took them into a turn, written in the turn's group commit with the request's other rows.
 */
import { createSqliteSessionEventStore, sessionEventInsert } from "../../src/store/session-event-store";
import type { SessionEvent } from "../../src/core/session-events";
import { useTempDatabase } from "../helpers/temp-database";

const event = (dedupeKey: string, text = `text of ${dedupeKey}`, sessionKey = "main"): SessionEvent => ({
  sessionKey,
  dedupeKey,
  text,
  meta: { source: "hook:wake", kind: "wake", dedupeKey },
  createdAt: 1_000,
});

describe("the session event store", () => {
  const t = useTempDatabase();

  it("keeps events in arrival order across a restart, one per key and session, until they are consumed", async () => {
    const store = createSqliteSessionEventStore(t.database);
    expect(await store.stage(event("wake:a"))).toBe(true);
    expect(await store.stage(event("wake:b"))).toBe(true);
    expect(await store.stage(event("wake:a", "another text"))).toBe(false);
    expect(await store.stage(event("wake:a", "same key, other session", "agent:main:main"))).toBe(true);
    t.reopen();
    const reopened = createSqliteSessionEventStore(t.database);
    expect(reopened.pending({ sessionKey: "main" }).map((e) => [e.dedupeKey, e.text, e.meta])).toEqual([
      ["wake:a", "text of wake:a", { source: "hook:wake", kind: "wake", dedupeKey: "wake:a" }],
      ["wake:b", "text of wake:b", { source: "hook:wake", kind: "wake", dedupeKey: "wake:b" }],
    ]);
    expect(reopened.pending({ limit: 1 }).map((e) => e.dedupeKey)).toEqual(["wake:a"]);
    expect(await reopened.consumed("main", ["wake:a", "wake:unknown"])).toBe(1);
    expect(reopened.pending().map((e) => [e.sessionKey, e.dedupeKey])).toEqual([
      ["main", "wake:b"],
      ["agent:main:main", "wake:a"],
    ]);
    expect([reopened.count("main"), reopened.count("agent:main:main"), reopened.count("other")]).toEqual([1, 1, 0]);
  });

  it("its INSERT joins a write of the turn's batch: stored with the other rows of that write, or not at all", async () => {
    const store = createSqliteSessionEventStore(t.database);
    const insert = sessionEventInsert(t.database.db);
    await expect(
      t.database.batch.stage(() => {
        insert(event("wake:with-a-failing-row"));
        throw new Error("the request's other row failed");
      }),
    ).rejects.toThrow("the request's other row failed");
    expect(store.pending()).toEqual([]);
    await t.database.batch.stage(() => insert(event("wake:together")));
    expect(store.pending().map((e) => e.dedupeKey)).toEqual(["wake:together"]);
  });

  it("a row with damaged metadata is handed with its key alone, and named", async () => {
    const store = createSqliteSessionEventStore(t.database, t.log.logger);
    await store.stage(event("wake:damaged"));
    t.database.db.exec("UPDATE session_events SET meta = '{not json'");
    expect(store.pending().map((e) => [e.text, e.meta])).toEqual([["text of wake:damaged", { dedupeKey: "wake:damaged" }]]);
    expect(t.log.lines.find((l) => l.message.includes("damaged metadata"))?.meta).toMatchObject({ database: t.database.file, seq: 1 });
  });
});
