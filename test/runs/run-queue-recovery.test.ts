/**
 * Recovery when the run queue starts on a store left by a previous process (SPEC §7): runs found
 * running are reported as interrupted (or re-queued with retryInterrupted), queued runs resume in
 * seq order, and a summary recorded but not confirmed before a crash is posted exactly once.
 */
import type { RunRecord, RunStore } from "../../src/core/runs";
import { createMemoryRunStore } from "../helpers/memory-run-store";
import { INTERRUPTED_REASON, summaryDedupeKey } from "../../src/runs/executor";
import { gaveUpReason, MAX_RUN_ATTEMPTS } from "../../src/runs/recovery";
import { configKeyNamer } from "../../src/host-contract/config-keys";
import { agentAction, createHarness, stopAllHarnesses, directSource, runRecord } from "./harness";
import { wrappedContent } from "../helpers/wrapped";

afterEach(stopAllHarnesses);

describe("run queue", () => {
  describe("recovery on start", () => {
    function seeded(): RunStore {
      const store = createMemoryRunStore();
      store.insert(
        runRecord({
          id: "r-running",
          seq: store.nextSeq(),
          status: "running",
          startedAt: "2025-01-01T00:00:05.000Z",
          action: agentAction({ name: "CRM", message: "was running", sessionKey: "hook:a" }),
        }),
      );
      store.insert(runRecord({ id: "r-q2", seq: store.nextSeq(), action: agentAction({ message: "queued second", sessionKey: "hook:b" }) }));
      store.insert(runRecord({ id: "r-q1", seq: store.nextSeq(), action: agentAction({ message: "queued third", sessionKey: "hook:b" }) }));
      store.insert(runRecord({ id: "r-done", seq: store.nextSeq(), status: "succeeded", summary: "old" }));
      return store;
    }

    it("reports runs found running as interrupted and resumes queued runs in seq order", async () => {
      const h = createHarness({ store: seeded() });
      await h.queue.start();
      const interrupted = h.store.get("r-running");
      expect(interrupted).toMatchObject({ status: "interrupted", error: INTERRUPTED_REASON, summary: `Hook CRM (interrupted): ${INTERRUPTED_REASON}` });
      expect(interrupted?.finishedAt).toEqual(expect.any(String));
      expect(wrappedContent(h.host.systemEvents[0].text)).toBe(`Hook CRM (interrupted): ${INTERRUPTED_REASON}`);
      expect(h.events[0]).toEqual({
        name: "run:finished",
        event: { runId: "r-running", sessionKey: "hook:a", name: "CRM", status: "interrupted", delivered: false },
      });
      await h.finished("r-q1");
      await h.finished("r-q2");
      expect(h.host.turns.map((t) => t.message)).toEqual(["queued second", "queued third"]);
      expect(h.store.get("r-done")?.summary).toBe("old");
    });

    it("re-posts a summary recorded but not confirmed before a crash, exactly once (regression: kill -9 between summary and status reported a run twice)", async () => {
      const store = createMemoryRunStore();
      const summary = "Hook Deploy: done";
      store.insert(
        runRecord({
          id: "r-pending",
          seq: store.nextSeq(),
          status: "succeeded",
          summary,
          summaryPending: true,
          action: agentAction({ name: "Deploy", wakeMode: "now" }),
        }),
      );
      store.insert(runRecord({ id: "r-posted", seq: store.nextSeq(), status: "succeeded", summary: "Hook Old: posted", summaryPending: true }));
      const h = createHarness({ store });
      // The crash came after r-posted's summary reached the main session: the host already holds it.
      await h.host.api.runtime.sessions.enqueueSystemEvent("main", "Hook Old: posted", { dedupeKey: summaryDedupeKey("r-posted") });
      await h.queue.start();
      expect(h.host.systemEvents.map((e) => e.text)).toEqual(["Hook Old: posted", expect.any(String)]);
      expect(wrappedContent(h.host.systemEvents[1].text)).toBe(summary);
      expect(h.host.systemEvents[1].meta).toMatchObject({ dedupeKey: summaryDedupeKey("r-pending"), runId: "r-pending" });
      expect(h.store.get("r-pending")).toMatchObject({ status: "succeeded", summary, summaryPending: false });
      expect(h.store.get("r-posted")).toMatchObject({ summaryPending: false });
      expect(h.host.heartbeats).toEqual([{ reason: "hook:agent" }, { reason: "hook:agent" }]);
    });

    it("records an interrupted run before reporting it, and a finished run before posting its summary", async () => {
      const h = createHarness({ store: seeded() });
      const seenAtPost: Array<RunRecord | undefined> = [];
      const enqueue = h.host.api.runtime.sessions.enqueueSystemEvent;
      (h.host.api.runtime.sessions as { enqueueSystemEvent: typeof enqueue }).enqueueSystemEvent = (key, text, meta) => {
        seenAtPost.push(h.store.get(String(meta?.runId)));
        return enqueue(key, text, meta);
      };
      await h.queue.start();
      await h.finished("r-q2");
      expect(seenAtPost[0]).toMatchObject({ id: "r-running", status: "interrupted", summaryPending: true });
      expect(seenAtPost.find((r) => r?.id === "r-q2")).toMatchObject({ status: "succeeded", summaryPending: true });
      expect(h.store.get("r-running")?.summaryPending).toBe(false);
    });

    it("a run whose turn still goes on in the host (a config reload restarted only the service) is joined, not recorded interrupted", async () => {
      const h = createHarness({ store: seeded() });
      const agents = h.host.api.runtime.agents as { stillRunning?: (runId: string) => boolean };
      agents.stillRunning = (runId) => runId === "r-running";
      await h.queue.start();
      expect((await h.finished("r-running")).status).toBe("succeeded");
      expect(h.host.turns.find((t) => t.message === "was running")).toMatchObject({ runId: "r-running" });
      expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).not.toContain(`Hook CRM (interrupted): ${INTERRUPTED_REASON}`);
    });

    it("re-queues runs found running when retryInterrupted is set", async () => {
      const h = createHarness({ store: seeded(), config: { retryInterrupted: true } });
      await h.queue.start();
      expect((await h.finished("r-running")).status).toBe("succeeded");
      await h.finished("r-q1");
      expect(h.host.systemEvents.map((e) => wrappedContent(e.text))).not.toContain(`Hook CRM (interrupted): ${INTERRUPTED_REASON}`);
      expect(h.host.turns.map((t) => t.message)).toEqual(["was running", "queued second", "queued third"]);
    });

    it("the reason recorded for a run given up names the host's section key (keys), not hooks.runs.retryInterrupted", async () => {
      const store = createMemoryRunStore();
      store.insert(
        runRecord({
          id: "poison",
          seq: store.nextSeq(),
          status: "running",
          startedAt: "2025-01-01T00:00:05.000Z",
          attempts: MAX_RUN_ATTEMPTS,
          action: agentAction({ name: "poison", sessionKey: "hook:poison" }),
        }),
      );
      const section = "plugins.entries.inbound-webhooks.config";
      const h = createHarness({ store, config: { retryInterrupted: true }, queue: { keys: configKeyNamer(section) } });
      await h.queue.start();
      const reason = gaveUpReason(MAX_RUN_ATTEMPTS).replace("hooks.", `${section}.`);
      expect(h.store.get("poison")).toMatchObject({ status: "interrupted", error: reason, summary: `Hook poison (interrupted): ${reason}` });
      expect(reason).not.toEqual(gaveUpReason(MAX_RUN_ATTEMPTS));
    });

    it("regression: with retryInterrupted a run found running was queued again at every start; one started MAX_RUN_ATTEMPTS times is reported interrupted instead, one started fewer times is queued again", async () => {
      // Each found running alone (one found beside others is not counted: next test).
      const alone = (id: string, attempts: number | undefined) => {
        const store = createMemoryRunStore();
        store.insert(
          runRecord({
            id,
            seq: store.nextSeq(),
            status: "running",
            startedAt: "2025-01-01T00:00:05.000Z",
            attempts,
            action: agentAction({ name: id, message: `message of ${id}`, sessionKey: `hook:${id}` }),
          }),
        );
        return createHarness({ store, config: { retryInterrupted: true } });
      };
      const last = alone("last", MAX_RUN_ATTEMPTS);
      await last.queue.start();
      expect(last.store.get("last")).toMatchObject({
        status: "interrupted",
        attempts: MAX_RUN_ATTEMPTS,
        error: gaveUpReason(MAX_RUN_ATTEMPTS),
        summary: `Hook last (interrupted): ${gaveUpReason(MAX_RUN_ATTEMPTS)}`,
      });
      expect(last.host.systemEvents.map((e) => wrappedContent(e.text))).toEqual([`Hook last (interrupted): ${gaveUpReason(MAX_RUN_ATTEMPTS)}`]);
      expect(last.events[0]).toEqual({
        name: "run:finished",
        event: { runId: "last", sessionKey: "hook:last", name: "last", status: "interrupted", delivered: false },
      });
      expect(last.host.turns).toEqual([]);
      for (const [id, attempts, after] of [
        ["before-upgrade", undefined, 1],
        ["second", MAX_RUN_ATTEMPTS - 1, MAX_RUN_ATTEMPTS],
      ] as const) {
        // A row from before starts were counted was started once.
        const h = alone(id, attempts);
        await h.queue.start();
        expect((await h.finished(id)).attempts).toBe(after);
        expect(h.host.turns.map((t) => t.message)).toEqual([`message of ${id}`]);
      }
    });

    it("regression: runs found running together were each counted, so runs beside a poison run were given up with it; none is counted, and each is queued again to run alone, nothing beside it and nothing overtaking it", async () => {
      const store = createMemoryRunStore();
      for (const id of ["a", "b"])
        store.insert(
          runRecord({
            id,
            seq: store.nextSeq(),
            status: "running",
            startedAt: "2025-01-01T00:00:05.000Z",
            attempts: MAX_RUN_ATTEMPTS,
            action: agentAction({ name: id, message: `message of ${id}`, sessionKey: `hook:${id}` }),
          }),
        );
      store.insert(runRecord({ id: "c", seq: store.nextSeq(), action: agentAction({ name: "c", message: "message of c", sessionKey: "hook:c" }) }));
      store.insert(runRecord({ id: "d", seq: store.nextSeq(), action: agentAction({ name: "d", message: "message of d", sessionKey: "hook:d" }) }));
      const h = createHarness({ store, config: { retryInterrupted: true, maxConcurrent: 4 } });
      let active = 0;
      let maxActive = 0;
      const log: string[] = [];
      h.emitter.on("run:started", ({ runId }) => {
        maxActive = Math.max(maxActive, ++active);
        log.push(`${runId}:${active}`);
      });
      h.emitter.on("run:finished", () => active--);
      await h.queue.start();
      // The crash is taken back from each (a starts at once, alone; b waits for it).
      expect(store.get("a")).toMatchObject({ status: "running", attempts: MAX_RUN_ATTEMPTS });
      expect(store.get("b")).toMatchObject({ status: "queued", attempts: MAX_RUN_ATTEMPTS - 1 });
      for (const id of ["a", "b", "c", "d"]) expect((await h.finished(id)).status).toBe("succeeded");
      expect(h.host.systemEvents.map((e) => wrappedContent(e.text)).filter((t) => t.includes("(interrupted)"))).toEqual([]);
      // a and b alone, in seq order; then c and d together.
      expect(log.slice(0, 2)).toEqual(["a:1", "b:1"]);
      expect(h.host.turns.map((t) => t.message)).toEqual(["message of a", "message of b", "message of c", "message of d"]);
      expect(store.get("a")!.attempts).toBe(MAX_RUN_ATTEMPTS);
    });

    it("keeps runs accepted before start and runs them after recovery", async () => {
      const h = createHarness({ store: seeded() });
      const early = await h.queue.accept(agentAction({ message: "early", sessionKey: "hook:b" }), directSource());
      if (!early.ok) throw early.error;
      expect(early.value.seq).toBe(5);
      await h.queue.start();
      await h.finished(early.value.id);
      expect(h.host.turns.map((t) => t.message)).toEqual(["queued second", "queued third", "early"]);
    });
  });
});
