/** The demo's agent: echoes (notice folded), and acknowledges a heartbeat of run summaries only. */
import { createEchoRunner } from "../../../src/gateway/runners/echo-runner";
import type { RunnerTurn } from "../../../src/gateway/runners/agent-runner";
import { FOLDED_UNTRUSTED_NOTICE, UNTRUSTED_NOTICE } from "../../../src/host-contract/untrusted-notice";

const turn = (over: Partial<RunnerTurn> = {}): RunnerTurn => ({
  sessionKey: "main",
  history: [],
  message: "hello",
  signal: new AbortController().signal,
  ...over,
});
const summary = { meta: { kind: "run-summary" } };
const wake = { meta: { kind: "wake" } };

test("a heartbeat whose events are only run summaries is answered HEARTBEAT_OK", async () => {
  expect(await createEchoRunner().run(turn({ heartbeatEvents: [summary, summary] }))).toEqual({ status: "ok", reply: "HEARTBEAT_OK" });
});

test.each([
  ["a wake among them", [summary, wake]],
  ["an event without meta", [{}]],
  ["no events (not a heartbeat)", undefined],
])("otherwise it echoes: %s", async (_what, events) => {
  const message = `${UNTRUSTED_NOTICE}\nHook CI: done`;
  const given = turn({ message, ...(events ? { heartbeatEvents: events } : {}) });
  expect(await createEchoRunner().run(given)).toEqual({ status: "ok", reply: `echo: ${FOLDED_UNTRUSTED_NOTICE}\nHook CI: done` });
  expect(given.message).toBe(message); // what a model would get is unchanged
});
