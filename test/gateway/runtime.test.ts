/**
 * The host side of idempotent system events: an event whose dedupeKey the session
 * already holds is dropped — not queued again and not journaled — so a plugin that
 * re-posts a run summary after a crash does not report the run twice.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createServeRuntime, type ServeRuntimeDeps } from "../../src/gateway/runtime";
import { isHostOverloadedError } from "../../src/host-contract/host-overloaded";
import { createSessionStore } from "../../src/gateway/sessions/session-store";
import { createGroupCommit } from "../../src/gateway/storage/group-commit";
import { createJournal } from "../../src/gateway/journal/journal";

describe("gateway runtime: enqueueSystemEvent with a dedupeKey", () => {
  it("queues and journals the first event only", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-dedupe-"));
    const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
    const journalFile = path.join(dir, "journal.jsonl");
    const journal = createJournal({ file: journalFile });
    // Only sessions and journal are used by enqueueSystemEvent.
    const runtime = createServeRuntime({ sessions, journal, models: [] } as unknown as ServeRuntimeDeps);

    runtime.sessions.enqueueSystemEvent("main", "Hook CI: done", { dedupeKey: "run-summary:1" });
    runtime.sessions.enqueueSystemEvent("main", "Hook CI: done", { dedupeKey: "run-summary:1" });
    runtime.sessions.enqueueSystemEvent("main", "Hook CI: again", { dedupeKey: "run-summary:2" });
    runtime.sessions.enqueueSystemEvent("main", "no key");
    runtime.sessions.enqueueSystemEvent("main", "no key");
    journal.close?.();

    expect(sessions.get("main").pending.map((e) => e.text)).toEqual(["Hook CI: done", "Hook CI: again", "no key", "no key"]);
    const texts = fs
      .readFileSync(journalFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).text);
    expect(texts).toEqual(["Hook CI: done", "Hook CI: again", "no key", "no key"]);
  });
});

describe("gateway runtime: enqueueSystemEvent when a write fails", () => {
  it("rejects with the cause (ENOSPC) and keeps neither the event nor its journal line when the journal line cannot be written", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-atomic-"));
    const commit = createGroupCommit();
    const sessions = createSessionStore({ dir: path.join(dir, "sessions"), commit });
    const journalFile = path.join(dir, "journal.jsonl");
    const journal = createJournal({ file: journalFile, commit });
    const runtime = createServeRuntime({ sessions, journal, models: [] } as unknown as ServeRuntimeDeps);
    await runtime.sessions.enqueueSystemEvent("main", "stored");
    const staged = journal.staged.bind(journal);
    const full = jest.spyOn(journal, "staged").mockImplementationOnce((record) => {
      const [file, line] = staged(record);
      const noSpace = () => {
        throw Object.assign(new Error("cannot append to journal.jsonl: ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      };
      return [{ ...file, appendMany: noSpace }, line];
    });
    await expect(runtime.sessions.enqueueSystemEvent("main", "refused")).rejects.toMatchObject({ code: "ENOSPC" });
    full.mockRestore();
    expect(sessions.get("main").pending.map((e) => e.text)).toEqual(["stored"]);
    journal.close();
    expect(
      createSessionStore({ dir: path.join(dir, "sessions") })
        .get("main")
        .pending.map((e) => e.text),
    ).toEqual(["stored"]);
    expect(
      fs
        .readFileSync(journalFile, "utf8")
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l).text),
    ).toEqual(["stored"]);
  });
});

describe("gateway runtime: the main session's pending queue is bounded (session.main.maxPending)", () => {
  const setup = (mainMaxPending: number) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gw-maxpending-"));
    const sessions = createSessionStore({ dir: path.join(dir, "sessions") });
    const journal = createJournal({ file: path.join(dir, "journal.jsonl") });
    const runtime = createServeRuntime({ sessions, journal, models: [], mainMaxPending } as unknown as ServeRuntimeDeps);
    return { sessions, runtime };
  };

  it("refuses the event past the bound with a HostOverloadedError (Retry-After 30 s) and keeps the queue as it was", () => {
    const { sessions, runtime } = setup(3);
    for (let i = 0; i < 3; i++) runtime.sessions.enqueueSystemEvent("main", `e${i}`);
    let thrown: unknown;
    try {
      runtime.sessions.enqueueSystemEvent("main", "one too many");
    } catch (e) {
      thrown = e;
    }
    expect(isHostOverloadedError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: "overloaded",
      retryAfterSeconds: 30,
      message: "the main session already holds 3 pending system events (session.main.maxPending); retry once a heartbeat has drained them",
    });
    expect(sessions.get("main").pending.map((e) => e.text)).toEqual(["e0", "e1", "e2"]);
  });

  it("accepts again once events are consumed; a re-sent dedupe key is still dropped silently when full; other sessions are not bounded", () => {
    const { sessions, runtime } = setup(2);
    runtime.sessions.enqueueSystemEvent("main", "a", { dedupeKey: "k" });
    runtime.sessions.enqueueSystemEvent("main", "b");
    expect(() => runtime.sessions.enqueueSystemEvent("main", "a again", { dedupeKey: "k" })).not.toThrow();
    for (let i = 0; i < 5; i++) runtime.sessions.enqueueSystemEvent("hook:x", `x${i}`);
    sessions.consume("main", [sessions.get("main").pending[0]!.id]);
    runtime.sessions.enqueueSystemEvent("main", "c");
    expect(sessions.get("main").pending.map((e) => e.text)).toEqual(["b", "c"]);
    expect(sessions.get("hook:x").pending).toHaveLength(5);
  });
});
