/**
 * The dry run of a fan-out and of a mapping with its own `response` (SPEC §12):
 * the report lists every element's validated action and the answer the hook would
 * send (run ids as placeholders), and `formatDryRun` prints both. Nothing reaches the host.
 */
import type { MappingConfig } from "../../src/config/types";
import { createMappingEngine } from "../../src/mappings/engine";
import { dryRunHook } from "../../src/intake/dry-run";
import { formatDryRun, type DryRunReport } from "../../src/mappings/dry-run-report";
import { createFakeHost } from "../helpers/fake-host";
import { captureLogger, makeConfig, mapping } from "../mappings/helpers";

const batch = mapping({
  id: "batch",
  match: { path: "batch" },
  forEach: "events",
  messageTemplate: "event {{ index }}: {{ item.text }} from {{ payload.sender }}",
  sessionKey: "hook:batch:{{ item.id }}",
});
const forward = mapping({
  id: "fwd",
  match: { path: "forward" },
  messageTemplate: "mail {{ payload.id }}",
  sessionKey: "hook:mail",
  response: { status: 200, body: { received: "{{ payload.id }}", run: "{{ runId }}" } },
});
const batchWithResponse = mapping({
  id: "batch-ok",
  match: { path: "batch-ok" },
  forEach: "events",
  messageTemplate: "{{ item.text }}",
  sessionKey: "hook:b:{{ index }}",
  response: { status: 200, body: "{{ runs | json }}" },
});

function setup(mappings: MappingConfig[]) {
  const host = createFakeHost();
  const config = makeConfig({ mappings, maxFanOut: 3 });
  const engine = createMappingEngine({ config, presets: [], logger: captureLogger() });
  const run = (name: string, payload: unknown) =>
    dryRunHook(
      { name, body: Buffer.from(JSON.stringify(payload)), headers: { "content-type": "application/json" }, query: {} },
      { config, runtime: host.api.runtime, mappings: engine },
    );
  return { host, run };
}

const report = async (p: ReturnType<typeof setup>["run"] extends (...a: infer A) => infer R ? R : never): Promise<DryRunReport> => {
  const r = await p;
  if (!r.ok) throw new Error(`dry run failed: ${r.error.message}`);
  return r.value;
};

describe("dry run: fan-out and response", () => {
  test("a fan-out reports every element's action and the 202 the hook would send, and prints Item 0…n and the Response line", async () => {
    const { host, run } = setup([batch]);
    const r = await report(
      run("batch", {
        sender: "crm",
        events: [
          { id: "a", text: "one" },
          { id: "b", text: "two" },
        ],
      }),
    );
    expect([r.outcome, r.forEach, r.items?.map((i) => [i.index, i.action?.kind === "agent" ? [i.action.message, i.action.sessionKey] : undefined])]).toEqual([
      "batch",
      "events",
      [
        [0, ["event 0: one from crm", "hook:batch:a"]],
        [1, ["event 1: two from crm", "hook:batch:b"]],
      ],
    ]);
    expect(r.response).toEqual({
      status: 202,
      body: {
        ok: true,
        runs: [
          { index: 0, runId: "<run id 0>", sessionKey: "hook:batch:a" },
          { index: 1, runId: "<run id 1>", sessionKey: "hook:batch:b" },
        ],
        events: 0,
        mapping: "batch",
      },
    });
    const text = formatDryRun(r);
    expect(text).toContain("Outcome:  fan-out over payload.events — 2 items");
    expect(text).toMatch(/\nItem 0:\n {2}Outcome: {2}agent run[\s\S]*\n {4}event 0: one from crm\n[\s\S]*\nItem 1:\n[\s\S]*\n {4}event 1: two from crm\n/);
    expect(text).toContain(
      'Response: 202 {"ok":true,"runs":[{"index":0,"runId":"<run id 0>","sessionKey":"hook:batch:a"},{"index":1,"runId":"<run id 1>","sessionKey":"hook:batch:b"}],"events":0,"mapping":"batch"}',
    );
    expect([host.systemEvents, host.turns]).toEqual([[], []]);
  });

  test("a fan-out over more elements than hooks.maxFanOut fails the dry run as the hook would: 400 fan_out_too_large", async () => {
    const { run } = setup([batch]);
    const r = await run("batch", { events: [{}, {}, {}, {}] });
    expect(!r.ok && [r.error.reason, r.error.code]).toEqual(["hook_error", "fan_out_too_large"]);
  });

  test("a mapping's response is rendered with a placeholder run id and printed on the Response line", async () => {
    const { run } = setup([forward]);
    const r = await report(run("forward", { id: "evt_1" }));
    expect([r.outcome, r.response]).toEqual(["action", { status: 200, body: { received: "evt_1", run: "<run id>" } }]);
    expect(formatDryRun(r)).toContain('\nResponse: 200 {"received":"evt_1","run":"<run id>"}\n');
  });

  test("an agent mapping whose response answers 200 says the hook would answer 200, not 202, on its Outcome line", async () => {
    const { run } = setup([forward, mapping({ id: "plain", match: { path: "plain" }, messageTemplate: "hi" })]);
    expect(formatDryRun(await report(run("forward", { id: "evt_1" })))).toContain("\nOutcome:  agent run (the hook would answer 200)\n");
    expect(formatDryRun(await report(run("plain", {})))).toContain("\nOutcome:  agent run (the hook would answer 202)\n");
  });

  test("a fan-out with its own response renders it over the placeholder runs", async () => {
    const { run } = setup([batchWithResponse]);
    const r = await report(run("batch-ok", { events: [{ text: "x" }] }));
    expect(r.response).toEqual({ status: 200, body: JSON.stringify([{ index: 0, runId: "<run id 0>", sessionKey: "hook:b:0" }]) });
  });

  test("a mapping without response (and no fan-out) prints no Response line", async () => {
    const { run } = setup([mapping({ id: "plain", match: { path: "plain" }, messageTemplate: "hi" })]);
    const r = await report(run("plain", {}));
    expect(r.response).toBeUndefined();
    expect(formatDryRun(r)).not.toContain("Response:");
  });
});
