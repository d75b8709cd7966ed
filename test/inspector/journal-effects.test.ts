/** Which journal lines belong to a delivery (journal-effects.ts): by run id, session and run window, reply text, request window, next heartbeat. */
import request from "supertest";
import { journalEffects } from "../../src/inspector/journal-effects";
import type { JournalEntry } from "../../src/gateway/journal/journal";
import type { RunSummary } from "../../src/core/inspection";
import { FOLDED_UNTRUSTED_NOTICE, UNTRUSTED_NOTICE } from "../../src/host-contract/untrusted-notice";
import { createFakeInspector, delivery } from "../helpers/fake-inspector";
import { OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

const RUN: RunSummary = {
  id: "r-1",
  status: "succeeded",
  name: "github",
  sessionKey: "hook:gh:1",
  createdAt: "2026-11-22T10:00:00.002Z",
  startedAt: "2026-11-22T10:00:00.010Z",
  finishedAt: "2026-11-22T10:00:02.000Z",
};
const AGENT = delivery({ receivedAt: "2026-11-22T10:00:00.000Z", latencyMs: 3 });

const journal: JournalEntry[] = [
  { ts: "2026-11-22T09:59:59.000Z", type: "agent_turn", sessionKey: "hook:gh:1", status: "ok", reply: "too early", durationMs: 1 },
  { ts: "2026-11-22T10:00:01.000Z", type: "agent_turn", sessionKey: "hook:other", status: "ok", reply: "echo: hi", durationMs: 5 },
  { ts: "2026-11-22T10:00:01.500Z", type: "agent_turn", sessionKey: "hook:gh:1", status: "ok", reply: "echo: hi ", durationMs: 1490 },
  { ts: "2026-11-22T10:00:01.600Z", type: "delivery", channel: "phone_chat", text: "something else" },
  { ts: "2026-11-22T10:00:01.700Z", type: "delivery", channel: "phone_chat", text: "echo: hi" },
  { ts: "2026-11-22T10:00:02.001Z", type: "system_event", sessionKey: "main", text: "Hook github: succeeded", source: "hook:github", runId: "r-1" },
  { ts: "2026-11-22T10:00:02.002Z", type: "system_event", sessionKey: "main", text: "another run", source: "hook:github", runId: "r-2" },
  { ts: "2026-11-22T10:00:03.000Z", type: "heartbeat", reason: "interval", pending: 2 },
  { ts: "2026-11-22T10:00:04.000Z", type: "heartbeat", reason: "interval", pending: 0 },
  { ts: "2026-11-22T10:00:05.000Z", type: "delivery", channel: "phone_chat", text: "echo: hi" },
];

describe("journal effects of a delivery", () => {
  it("an agent delivery: its turn and delivery inside the run's window, its summary by run id, the heartbeat that read it", () => {
    expect(journalEffects(AGENT, [RUN], journal)).toEqual([
      { ts: "2026-11-22T10:00:01.500Z", kind: "agent turn", text: "on session hook:gh:1: ok in 1490 ms; reply: echo: hi " },
      { ts: "2026-11-22T10:00:01.700Z", kind: "delivery", text: "on channel phone_chat: echo: hi" },
      { ts: "2026-11-22T10:00:02.001Z", kind: "system event", text: "on session main from hook:github: Hook github: succeeded" },
      { ts: "2026-11-22T10:00:03.000Z", kind: "heartbeat", text: "reason interval, 2 pending system event(s)" },
    ]);
  });

  it("a wake: the system event from hook:<hook> written while the request was handled, not one written after", () => {
    const wake = delivery({ hook: "wake", receivedAt: "2026-11-22T10:00:00.000Z", latencyMs: 2.2, runIds: [] });
    const entries: JournalEntry[] = [
      { ts: "2026-11-22T10:00:00.003Z", type: "system_event", sessionKey: "main", text: "Build finished", source: "hook:wake" },
      { ts: "2026-11-22T10:00:00.004Z", type: "heartbeat", reason: "hook:wake", pending: 1 },
      { ts: "2026-11-22T10:00:00.500Z", type: "system_event", sessionKey: "main", text: "the next wake", source: "hook:wake" },
    ];
    expect(journalEffects(wake, [], entries).map((e) => e.text)).toEqual([
      "on session main from hook:wake: Build finished",
      "reason hook:wake, 1 pending system event(s)",
    ]);
  });

  it("a run still running keeps its window open; a run no longer in the store matches only by its id", () => {
    const running = { ...RUN, status: "running" as const, finishedAt: undefined };
    expect(journalEffects(AGENT, [running], journal).map((e) => e.ts)).toContain("2026-11-22T10:00:05.000Z");
    expect(journalEffects(AGENT, [undefined], journal).map((e) => e.kind)).toEqual(["system event", "heartbeat"]);
  });

  it("a long text is cut at 1000 characters and says how long it was", () => {
    const e: JournalEntry = { ts: "2026-11-22T10:00:02.001Z", type: "system_event", sessionKey: "main", text: "x".repeat(1500), runId: "r-1" };
    expect(journalEffects(AGENT, [RUN], [e])[0]!.text).toBe(`on session main: ${"x".repeat(1000)}… (1500 characters)`);
  });

  it("the delivery page shows them as an escaped timeline, and says so when none matches", async () => {
    const inspector = createFakeInspector({ deliveries: [AGENT], runs: [RUN] });
    const entries: JournalEntry[] = [
      { ts: "2026-11-22T10:00:02.001Z", type: "system_event", sessionKey: "main", text: "<script>alert(1)</script>", source: "hook:github", runId: "r-1" },
    ];
    const res = await request(uiApp({ inspector, journal: () => entries }).app)
      .get("/ui/deliveries/d-1")
      .set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(
      '<ol class="timeline journal" id="journal-effects"><li><time datetime="2026-11-22T10:00:02.001Z" class="nowrap">2026-11-22 10:00:02</time> <strong>system event</strong> on session main from hook:github: &lt;script&gt;alert(1)&lt;/script&gt;</li></ol>',
    );
    const none = await request(uiApp({ inspector, journal: () => [] }).app)
      .get("/ui/deliveries/d-1")
      .set("Authorization", `Bearer ${OPERATOR_TOKEN}`);
    expect(none.text).toContain('<p class="muted" id="journal-effects-none">No journal entry matches this delivery (yet).</p>');
  });

  it("the wrapper's SECURITY NOTICE is folded to one line in each effect, and line breaks are kept (regression: the notice repeated 3-4 times per delivery)", () => {
    const wrapped = `${UNTRUSTED_NOTICE}\n<<<EXTERNAL_UNTRUSTED_CONTENT id="a1">>>\nline one\nline two\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="a1">>>`;
    const entries: JournalEntry[] = [
      { ts: "2026-11-22T10:00:01.500Z", type: "agent_turn", sessionKey: "hook:gh:1", status: "ok", reply: `echo: ${wrapped}`, durationMs: 5 },
    ];
    const [effect] = journalEffects(AGENT, [RUN], entries);
    expect(effect!.text).not.toContain(UNTRUSTED_NOTICE);
    expect(effect!.text).toContain(`reply: echo: ${FOLDED_UNTRUSTED_NOTICE}\n<<<EXTERNAL_UNTRUSTED_CONTENT id="a1">>>\nline one\nline two\n`);
  });
});
