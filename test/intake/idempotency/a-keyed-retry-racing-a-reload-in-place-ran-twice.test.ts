/**
 * Regression (review of the OpenClaw adapter, issue 32): the guard knew only the requests in flight
 * in its own instance, and the crash recovery at open took every `pending` record for a crash's
 * leftover. A host that reloads the plugin in place (OpenClaw on a change under `plugins.*`) runs two
 * instances on one database in one process for a moment: the new one opened the database (dropping
 * the old one's pending record, its run not stored yet) and ran a keyed retry again, so the key made
 * two runs. In-flight keys are now known per database file across the process (keys-in-flight.ts).
 */
import { openPluginDatabase, type PluginDatabase } from "../../../src/store/database";
import { createIdempotencyGuard, runIdempotencyKey } from "../../../src/intake/idempotency/idempotency-guard";
import { createSqliteRunStore } from "../../../src/store/run-store";
import type { HookResponse } from "../../../src/core/ports";
import { recordingLogger, runRecord, tempDir } from "../../helpers/temp-dir";

const KEY = { scope: "agent", key: "ticket-4711", bodyHash: "h" };

describe("a keyed retry racing a reload in place (two plugin instances on one database in one process)", () => {
  let tmp: ReturnType<typeof tempDir>;
  let log: ReturnType<typeof recordingLogger>;
  let before: PluginDatabase;
  let after: PluginDatabase | undefined;
  const open = () => openPluginDatabase({ dir: tmp.dir, logger: log.logger });
  const guardOn = (database: PluginDatabase) => createIdempotencyGuard({ ttlSeconds: 60, database, logger: log.logger });

  /** The old instance's request: its pending record committed, its handler waiting for `store`; resolves with its answer. */
  function firstRequest(): { answer: Promise<HookResponse>; entered: Promise<void>; stored: Promise<void>; store(): void; fail(e: unknown): void } {
    let entered!: () => void;
    let stored!: () => void;
    const storedP = new Promise<void>((r) => (stored = r));
    let proceed!: (run: boolean) => void;
    let failWith!: (e: unknown) => void;
    const enteredP = new Promise<void>((r) => (entered = r));
    const gate = new Promise<boolean>((res, rej) => {
      proceed = res;
      failWith = rej;
    });
    const answer = guardOn(before).handle(KEY, async () => {
      entered();
      await gate;
      const runs = createSqliteRunStore(before);
      runs.insert(runRecord({ id: "run-of-the-first", seq: runs.nextSeq(), idempotencyKey: runIdempotencyKey("agent", KEY.key) }));
      stored();
      return { status: 202, body: { ok: true, runId: "run-of-the-first", sessionKey: "hook:x" } };
    });
    return { answer, entered: enteredP, stored: storedP, store: () => proceed(true), fail: (e) => failWith(e) };
  }

  beforeEach(() => {
    tmp = tempDir();
    log = recordingLogger("idempotency");
    before = open();
  });
  afterEach(() => {
    before.close();
    after?.close();
    after = undefined;
    log.close();
    tmp.remove();
  });

  it("the new instance's open keeps the old one's pending record, and its retry waits and replays the first's 202: one run", async () => {
    const first = firstRequest();
    await first.entered;
    after = open();
    const retryHandler = jest.fn(async (): Promise<HookResponse> => ({ status: 202, body: { ok: true, runId: "second-run", sessionKey: "hook:x" } }));
    const retry = guardOn(after).handle(KEY, retryHandler);
    first.store();
    expect((await first.answer).body).toMatchObject({ runId: "run-of-the-first" });
    const answered = await retry;
    expect([answered.status, answered.replayed, (answered.body as { runId: string }).runId]).toEqual([202, true, "run-of-the-first"]);
    expect(retryHandler).not.toHaveBeenCalled();
    expect(log.lines.find((l) => l.message === "plugin database open" && l.meta?.idempotencyDropped !== 0)).toBeUndefined();
  });

  it("the old instance's store closed by the reload after its run was stored: the waiting retry answers with that run, never runs again", async () => {
    const first = firstRequest();
    await first.entered;
    after = open();
    const retryHandler = jest.fn(async (): Promise<HookResponse> => ({ status: 202, body: { ok: true, runId: "second-run", sessionKey: "hook:x" } }));
    const retry = guardOn(after).handle(KEY, retryHandler);
    first.store();
    await first.stored;
    // The reload stops the old instance before its completion is committed: its record stays pending beside its run.
    before.close();
    await first.answer;
    const answered = await retry;
    expect([answered.status, answered.replayed, (answered.body as { runId: string }).runId]).toEqual([202, true, "run-of-the-first"]);
    expect(retryHandler).not.toHaveBeenCalled();
  });

  it("the old instance's request failed before it stored a run (its store closed): the waiting retry runs once, not with the old instance's error", async () => {
    const first = firstRequest();
    await first.entered;
    after = open();
    const retryHandler = jest.fn(async (): Promise<HookResponse> => ({ status: 202, body: { ok: true, runId: "second-run", sessionKey: "hook:x" } }));
    const retry = guardOn(after).handle(KEY, retryHandler);
    before.close();
    first.fail(new Error("the plugin database is closed"));
    await expect(first.answer).rejects.toThrow("the plugin database is closed");
    const answered = await retry;
    expect([answered.status, answered.replayed, (answered.body as { runId: string }).runId]).toEqual([202, undefined, "second-run"]);
    expect(retryHandler).toHaveBeenCalledTimes(1);
  });

  it("fifty concurrent keyed retries split across both instances make one run", async () => {
    after = open();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let runs = 0;
    const handler = async (): Promise<HookResponse> => {
      runs++;
      await gate;
      return { status: 202, body: { ok: true, runId: `run-${runs}`, sessionKey: "hook:x" } };
    };
    const guards = [guardOn(before), guardOn(after)];
    const all = Array.from({ length: 50 }, (_, i) => guards[i % 2]!.handle(KEY, handler));
    release();
    const answers = await Promise.all(all);
    expect(runs).toBe(1);
    expect(new Set(answers.map((a) => (a.body as { runId: string }).runId))).toEqual(new Set(["run-1"]));
  });
});
