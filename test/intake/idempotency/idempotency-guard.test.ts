import fs from "node:fs";
import path from "node:path";
import { DEFAULT_DATABASE_FILE, openPluginDatabase, type PluginDatabase } from "../../../src/store/database";
import { createIdempotencyGuard, runIdempotencyKey, isStorableResponse } from "../../../src/intake/idempotency/idempotency-guard";
import { createSqliteRunStore } from "../../../src/store/run-store";
import { HookError, hookErrors } from "../../../src/core/errors";
import type { HookResponse } from "../../../src/core/ports";
import { actionSource, agentAction, recordingLogger, runRecord, tempDir } from "../../helpers/temp-dir";

const accepted = (runId: string): HookResponse => ({ status: 202, body: { ok: true, runId, sessionKey: "hook:x" } });

describe("createIdempotencyGuard", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let database: PluginDatabase;
  let now: number;
  const open = () => openPluginDatabase({ dir: tmp.dir, logger: log.logger, clock: () => now });
  const guardFor = (ttlSeconds = 60) => createIdempotencyGuard({ ttlSeconds, database, logger: log.logger, clock: () => now });

  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("idempotency");
    now = Date.parse("2030-01-01T00:00:00.000Z");
    database = open();
  });
  afterEach(() => {
    database.close();
    log.close();
    tmp.remove();
  });

  it("runs the handler once and replays the stored status, body and headers with Idempotent-Replayed", async () => {
    const guard = guardFor();
    const handler = jest.fn(async (): Promise<HookResponse> => ({
      status: 202,
      body: { ok: true, runId: "r1", sessionKey: "hook:a" },
      headers: { "X-Extra": "1" },
    }));
    const first = await guard.handle({ scope: "agent", key: "k1", bodyHash: "h1" }, handler);
    expect(first).toEqual({ status: 202, body: { ok: true, runId: "r1", sessionKey: "hook:a" }, headers: { "X-Extra": "1" } });
    const second = await guard.handle({ scope: "agent", key: "k1", bodyHash: "h1" }, handler);
    expect(second).toEqual({
      status: 202,
      body: { ok: true, runId: "r1", sessionKey: "hook:a" },
      headers: { "X-Extra": "1", "Idempotent-Replayed": "true" },
      replayed: true,
    });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("regression: a wake's 200 was answered before its record was completed, so a kill -9 right after the answer let the retry wake the main session again", async () => {
    const guard = guardFor();
    const wakes = jest.fn(async (): Promise<HookResponse> => ({ status: 200, body: { ok: true, mode: "now" } }));
    await guard.handle({ scope: "wake", key: "w1", bodyHash: "h" }, wakes);
    // The files as a kill -9 right after the answer leaves them (the connection still open, nothing flushed since).
    const crashed = tempDir();
    try {
      for (const suffix of ["", "-wal"]) {
        const file = path.join(tmp.dir, DEFAULT_DATABASE_FILE + suffix);
        if (fs.existsSync(file)) fs.copyFileSync(file, path.join(crashed.dir, DEFAULT_DATABASE_FILE + suffix));
      }
      const restarted = openPluginDatabase({ dir: crashed.dir, logger: log.logger, clock: () => now });
      try {
        const retry = await createIdempotencyGuard({ ttlSeconds: 60, database: restarted, logger: log.logger, clock: () => now }).handle(
          { scope: "wake", key: "w1", bodyHash: "h" },
          wakes,
        );
        expect([retry.status, retry.headers?.["Idempotent-Replayed"], wakes.mock.calls.length]).toEqual([200, "true", 1]);
      } finally {
        restarted.close();
      }
    } finally {
      crashed.remove();
    }
  });

  it("replays a 204 skip without a body", async () => {
    const guard = guardFor();
    const handler = jest.fn(async (): Promise<HookResponse> => ({ status: 204 }));
    await guard.handle({ scope: "gh", key: "k", bodyHash: "h" }, handler);
    const again = await guard.handle({ scope: "gh", key: "k", bodyHash: "h" }, handler);
    expect(again).toEqual({ status: 204, headers: { "Idempotent-Replayed": "true" }, replayed: true });
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("rejects the same key with a different body hash with idempotency_key_reused (422)", async () => {
    const guard = guardFor();
    await guard.handle({ scope: "agent", key: "k1", bodyHash: "h1" }, async () => accepted("r1"));
    const handler = jest.fn(async () => accepted("r2"));
    const error = await guard.handle({ scope: "agent", key: "k1", bodyHash: "OTHER" }, handler).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HookError);
    expect((error as HookError).code).toBe("idempotency_key_reused");
    expect((error as HookError).status).toBe(422);
    expect((error as HookError).message).toBe(
      "The idempotency key was already used on agent with a different request body; send a new key for a different request.",
    );
    expect(handler).not.toHaveBeenCalled();
  });

  it("keeps keys apart per scope (hook path)", async () => {
    const guard = guardFor();
    const handler = jest.fn(async () => accepted("r"));
    await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    await guard.handle({ scope: "github", key: "k", bodyHash: "other" }, handler);
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it("50 concurrent requests with one key call the handler exactly once; the others replay its response", async () => {
    const guard = guardFor();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handler = jest.fn(async () => {
      await gate;
      return accepted("only-run");
    });
    const all = Array.from({ length: 50 }, () => guard.handle({ scope: "agent", key: "burst", bodyHash: "h" }, handler));
    release();
    const results = await Promise.all(all);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(results.filter((r) => r.replayed === true)).toHaveLength(49);
    expect(results.every((r) => r.status === 202 && (r.body as { runId: string }).runId === "only-run")).toBe(true);
  });

  it("a concurrent duplicate with a different body is rejected at once, while the first is in flight", async () => {
    const guard = guardFor();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const first = guard.handle({ scope: "agent", key: "k", bodyHash: "h1" }, async () => {
      await gate;
      return accepted("r1");
    });
    await expect(guard.handle({ scope: "agent", key: "k", bodyHash: "h2" }, async () => accepted("r2"))).rejects.toMatchObject({
      code: "idempotency_key_reused",
    });
    release();
    await expect(first).resolves.toMatchObject({ status: 202 });
  });

  it.each([
    [400, { ok: false, code: "invalid_payload", error: "message must be a non-empty string" }],
    [503, { ok: false, code: "overloaded", error: "Too many runs are queued; retry later." }],
    [500, { ok: false, code: "transform_failed", error: "The hook's transform failed." }],
  ])("does not store a %i response: the key is free again and the retry runs", async (status, body) => {
    const guard = guardFor();
    const handler = jest.fn().mockResolvedValueOnce({ status, body }).mockResolvedValueOnce(accepted("r2"));
    expect(await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler)).toEqual({ status, body });
    expect(await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler)).toEqual(accepted("r2"));
    expect(handler).toHaveBeenCalledTimes(2);
    database.batch.flush(); // the completion is committed with the turn's group commit, after the response
    expect(database.db.prepare("SELECT state, status FROM idempotency_keys").all()).toEqual([{ state: "complete", status: 202 }]);
  });

  it("an error response is shared with concurrent waiters, not marked replayed", async () => {
    const guard = guardFor();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const handler = jest.fn(async () => {
      await gate;
      return { status: 503, body: { ok: false, code: "overloaded", error: "busy" }, headers: { "Retry-After": "5" } };
    });
    const a = guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    const b = guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    release();
    const [ra, rb] = await Promise.all([a, b]);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(rb).toEqual({ status: 503, body: { ok: false, code: "overloaded", error: "busy" }, headers: { "Retry-After": "5" } });
    expect(rb.replayed).toBeUndefined();
    expect(ra.status).toBe(503);
  });

  it("a throwing handler frees the key; waiters receive the same error", async () => {
    const guard = guardFor();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const boom = hookErrors.overloaded({ maxQueued: 1 }, { headers: { "Retry-After": "3" } });
    const handler = jest.fn(async (): Promise<HookResponse> => {
      await gate;
      throw boom;
    });
    const a = guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    const b = guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    release();
    await expect(a).rejects.toBe(boom);
    await expect(b).rejects.toBe(boom);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(database.db.prepare("SELECT COUNT(*) AS n FROM idempotency_keys").get()).toEqual({ n: 0 });
    await expect(guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, async () => accepted("r"))).resolves.toEqual(accepted("r"));
  });

  it("forgets a key after the TTL (injected clock)", async () => {
    const guard = guardFor(60);
    const handler = jest.fn(async () => accepted("r"));
    await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    now += 59_999;
    expect((await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler)).replayed).toBe(true);
    now += 1;
    expect((await guard.handle({ scope: "agent", key: "k", bodyHash: "changed" }, handler)).replayed).toBeUndefined();
    expect(handler).toHaveBeenCalledTimes(2);
  });

  it("a key reused after its TTL whose first new attempt fails is retried, not answered with the expired key's old run", async () => {
    const guard = guardFor(60);
    const runs = createSqliteRunStore(database);
    const store = (id: string, key: string) => {
      runs.insert(runRecord({ id, seq: runs.nextSeq(), idempotencyKey: runIdempotencyKey("agent", key) }));
      return accepted(id);
    };
    await guard.handle({ scope: "agent", key: "k", bodyHash: "day-1" }, async () => store("old-run", "k"));
    now += 60_000; // the key expired; its run is still kept (runs have their own retention)
    const overloaded = hookErrors.overloaded({ maxQueued: 1 }, { headers: { "Retry-After": "3" } });
    await expect(
      guard.handle({ scope: "agent", key: "k", bodyHash: "day-2" }, async () => {
        throw overloaded;
      }),
    ).rejects.toBe(overloaded);
    const retry = jest.fn(async () => store("new-run", "k"));
    const res = await guard.handle({ scope: "agent", key: "k", bodyHash: "day-2" }, retry);
    expect(res).toEqual(accepted("new-run"));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it("the same for a fan-out: a key reused after its TTL whose new attempt fails is retried, not answered with the expired use's runs", async () => {
    const guard = guardFor(60);
    const runs = createSqliteRunStore(database);
    await guard.handle({ scope: "crm", key: "batch-1", bodyHash: "day-1" }, async () => {
      for (const i of [0, 1]) runs.insert(runRecord({ id: `old-${i}`, seq: runs.nextSeq(), idempotencyKey: `${runIdempotencyKey("crm", "batch-1")}#${i}` }));
      return { status: 202, body: { ok: true, runs: [], events: 0 } };
    });
    now += 60_000;
    const overloaded = hookErrors.overloaded({ maxQueued: 1 }, { headers: { "Retry-After": "3" } });
    await expect(
      guard.handle({ scope: "crm", key: "batch-1", bodyHash: "day-2" }, async () => {
        throw overloaded;
      }),
    ).rejects.toBe(overloaded);
    const retry = jest.fn(async () => accepted("new-run"));
    expect(await guard.handle({ scope: "crm", key: "batch-1", bodyHash: "day-2" }, retry)).toEqual(accepted("new-run"));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it("a crash while a key reused after its TTL was pending drops it at the next open (the expired key's old run is not its answer)", async () => {
    const runs = createSqliteRunStore(database);
    await guardFor(60).handle({ scope: "agent", key: "k", bodyHash: "day-1" }, async () => {
      runs.insert(runRecord({ id: "old-run", seq: runs.nextSeq(), idempotencyKey: runIdempotencyKey("agent", "k") }));
      return accepted("old-run");
    });
    now += 60_000;
    // The new attempt's pending record is committed, then the process dies before its run is stored.
    let entered!: () => void;
    const inHandler = new Promise<void>((r) => (entered = r));
    void guardFor(60).handle({ scope: "agent", key: "k", bodyHash: "day-2" }, () => {
      entered();
      return new Promise<HookResponse>(() => undefined);
    });
    await inHandler;
    database.close();
    database = open();
    const retry = jest.fn(async () => accepted("new-run"));
    expect(await guardFor(60).handle({ scope: "agent", key: "k", bodyHash: "day-2" }, retry)).toEqual(accepted("new-run"));
    expect(retry).toHaveBeenCalledTimes(1);
  });

  it("purges expired records lazily, at most once per purge interval", async () => {
    const guard = createIdempotencyGuard({ ttlSeconds: 10, database, logger: log.logger, clock: () => now, purgeIntervalMs: 60_000 });
    const count = () => (database.db.prepare("SELECT COUNT(*) AS n FROM idempotency_keys").get() as { n: number }).n;
    await guard.handle({ scope: "a", key: "1", bodyHash: "h" }, async () => accepted("r1"));
    now += 11_000;
    await guard.handle({ scope: "a", key: "2", bodyHash: "h" }, async () => accepted("r2"));
    expect(count()).toBe(2); // interval not elapsed yet: "1" is expired but still stored
    now += 60_000;
    await guard.handle({ scope: "a", key: "3", bodyHash: "h" }, async () => accepted("r3"));
    expect(count()).toBe(1);
  });

  it("replays after a restart (new guard, reopened database)", async () => {
    await guardFor().handle({ scope: "agent", key: "k", bodyHash: "h" }, async () => accepted("before-restart"));
    database.close();
    database = open();
    const handler = jest.fn(async () => accepted("after-restart"));
    const res = await guardFor().handle({ scope: "agent", key: "k", bodyHash: "h" }, handler);
    expect(res).toMatchObject({ status: 202, replayed: true, body: { runId: "before-restart" } });
    expect(handler).not.toHaveBeenCalled();
    await expect(guardFor().handle({ scope: "agent", key: "k", bodyHash: "x" }, handler)).rejects.toMatchObject({ code: "idempotency_key_reused" });
  });

  it("crash after the run was persisted: the pending record is completed from the run at the next open", async () => {
    // Simulate the crash window: pending record + run row carrying the key, no completion.
    const store = createSqliteRunStore(database);
    database.db
      .prepare("INSERT INTO idempotency_keys (scope, key, body_hash, state, created_at, expires_at) VALUES (?, ?, ?, 'pending', ?, ?)")
      .run("github", "d-1", "h", now, now + 60_000);
    store.insert(
      runRecord({
        id: "run-42",
        seq: store.nextSeq(),
        action: agentAction({ sessionKey: "hook:gh:1" }),
        source: actionSource({ hook: "github", mappingId: "gh-push" }),
        idempotencyKey: runIdempotencyKey("github", "d-1"),
      }),
    );
    database.close();
    database = open();
    expect(database.db.prepare("SELECT state, status FROM idempotency_keys").all()).toEqual([{ state: "complete", status: 202 }]);
    const handler = jest.fn(async () => accepted("second-run"));
    const res = await guardFor().handle({ scope: "github", key: "d-1", bodyHash: "h" }, handler);
    expect(res).toEqual({
      status: 202,
      body: { ok: true, runId: "run-42", sessionKey: "hook:gh:1", mapping: "gh-push" },
      headers: { "Idempotent-Replayed": "true" },
      replayed: true,
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it("crash before any run was persisted: the pending record is dropped so the retry executes", async () => {
    database.db
      .prepare("INSERT INTO idempotency_keys (scope, key, body_hash, state, created_at, expires_at) VALUES ('agent', 'k', 'h', 'pending', ?, ?)")
      .run(now, now + 60_000);
    database.close();
    database = open();
    expect(log.lines.filter((l) => l.message === "plugin database open").at(-1)?.meta).toMatchObject({ idempotencyCompleted: 0, idempotencyDropped: 1 });
    const handler = jest.fn(async () => accepted("retry"));
    expect(await guardFor().handle({ scope: "agent", key: "k", bodyHash: "h" }, handler)).toEqual(accepted("retry"));
    expect(handler).toHaveBeenCalledTimes(1);
  });

  it("a pending record found while running (no request in flight here) is resolved the same way", async () => {
    const store = createSqliteRunStore(database);
    const guard = guardFor();
    database.db
      .prepare("INSERT INTO idempotency_keys (scope, key, body_hash, state, created_at, expires_at) VALUES ('agent', 'k', 'h', 'pending', ?, ?)")
      .run(now, now + 60_000);
    store.insert(runRecord({ id: "run-7", seq: store.nextSeq(), idempotencyKey: runIdempotencyKey("agent", "k") }));
    const handler = jest.fn(async () => accepted("dup"));
    expect(await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, handler)).toMatchObject({
      replayed: true,
      body: { ok: true, runId: "run-7", sessionKey: "hook:ci-1" },
    });
    expect(handler).not.toHaveBeenCalled();
  });

  it("answers shutting_down when the database is already closed", async () => {
    const guard = guardFor();
    database.close();
    await expect(guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, async () => accepted("r"))).rejects.toMatchObject({
      code: "shutting_down",
      status: 503,
      headers: { "Retry-After": "5" },
    });
  });

  it("still answers the request when the database closes while the handler runs", async () => {
    const guard = guardFor();
    const res = await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, async () => {
      database.close();
      return accepted("r");
    });
    expect(res).toEqual(accepted("r"));
    expect(log.lines.some((l) => l.level === "warn" && l.message.startsWith("idempotency record not settled"))).toBe(true);
  });

  it("stores 2xx only by default", () => {
    expect([200, 202, 204, 400, 404, 422, 429, 500, 503].map((status) => isStorableResponse({ status }))).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("never logs the request body or response body", async () => {
    const guard = guardFor();
    await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, async () => ({
      status: 202,
      body: { ok: true, runId: "secret-run", sessionKey: "hook:s" },
    }));
    await guard.handle({ scope: "agent", key: "k", bodyHash: "h" }, async () => accepted("x"));
    expect(JSON.stringify(log.lines)).not.toContain("secret-run");
  });
});
