/**
 * `dryRunHook` on its own (no commander, no files): a request → the report of the
 * matched mapping and its validated action, or the failure the hook would answer
 * with. Nothing reaches the host.
 */
import fs from "node:fs";
import path from "node:path";
import type { MappingConfig } from "../../src/config/types";
import { createMappingEngine } from "../../src/mappings/engine";
import { dryRunHook, type DryRunRequest } from "../../src/intake/dry-run";
import { createFakeHost, type FakeHostOptions } from "../helpers/fake-host";
import { captureLogger, makeConfig, mapping, PAYLOAD_FIXTURES } from "../mappings/helpers";
import { formatDryRun } from "../../src/mappings/dry-run-report";

const push = fs.readFileSync(path.join(PAYLOAD_FIXTURES, "github-push.json"));
const github = mapping({
  id: "github",
  match: { path: "github" },
  name: "GitHub",
  sessionKey: "github:{{ repository.full_name }}",
  messageTemplate: "{{ headers.x-github-event }} in {{ repository.full_name }}",
});

function setup(mappings: MappingConfig[] = [github], hostOpts: FakeHostOptions = {}) {
  const host = createFakeHost(hostOpts);
  const config = makeConfig({ mappings });
  const engine = createMappingEngine({ config, presets: [], logger: captureLogger() });
  const run = (over: Partial<DryRunRequest> = {}) =>
    dryRunHook(
      { name: "github", body: push, headers: { "x-github-event": "push" }, query: {}, ...over },
      { config, runtime: host.api.runtime, mappings: engine },
    );
  return { host, run };
}

function nothingDispatched(host: ReturnType<typeof createFakeHost>): void {
  expect([host.systemEvents, host.heartbeats, host.turns, host.deliveries]).toEqual([[], [], [], []]);
}

describe("dryRunHook", () => {
  test("`test` said a mapped reply on channel last goes to phone_chat inside OpenClaw, which offers none: the fallback only where the host offers it", async () => {
    const routingLine = async (channels: string[]) => {
      const r = await setup([github], { channels }).run();
      if (!r.ok) throw new Error("the dry run failed");
      return formatDryRun(r.value)
        .split("\n")
        .find((l) => l.startsWith("Delivery:"));
    };
    expect(await routingLine(["phone_chat", "bot_chat"])).toBe(
      "Delivery: channel last (the main session's last route; phone_chat when there is none), to (the last recipient)",
    );
    expect(await routingLine(["bot_chat"])).toBe(
      "Delivery: channel last (the main session's last route; not delivered while there is none), to (the last recipient)",
    );
  });

  test("a matching agent mapping: the report carries the validated action, and nothing is dispatched", async () => {
    const { host, run } = setup();
    const r = await run({ name: "/github/" });
    expect(r).toEqual({
      ok: true,
      value: {
        hook: "github",
        mapping: { id: "github", key: "hooks.mappings[0]" },
        outcome: "action",
        action: expect.objectContaining({
          kind: "agent",
          name: "GitHub",
          sessionKey: "hook:github:ada-lab/garden-sensors",
          message: "push in ada-lab/garden-sensors",
        }),
        allowUnsafeExternalContent: false,
        sessionKeyGenerated: false,
        lastRouteFallback: "phone_chat",
        dispatched: false,
      },
    });
    nothingDispatched(host);
  });

  test("a direct endpoint is refused by name", async () => {
    const { run } = setup();
    expect(await run({ name: "agent" })).toEqual({
      ok: false,
      error: { reason: "direct_endpoint", message: '"agent" is a direct endpoint, not a mapped hook', lines: [] },
    });
  });

  test("a body that is not a JSON object is refused as a request would be", async () => {
    const { run } = setup();
    expect(await run({ body: Buffer.from("[1,2]") })).toEqual({
      ok: false,
      error: { reason: "invalid_body", message: "The body must be a JSON object, not an array. (invalid_json)", lines: [], code: "invalid_json" },
    });
  });

  test("no matching mapping: 404 not_found, with the configured mappings listed", async () => {
    const { run } = setup();
    expect(await run({ name: "gitlab" })).toEqual({
      ok: false,
      error: {
        reason: "no_match",
        message: 'No mapping matches "gitlab" (the hook would answer 404 not_found).',
        lines: ["Mappings, in match order:", '  github (hooks.mappings[0]): path "github", agent'],
        code: "not_found",
      },
    });
  });

  test("an action the request validation refuses names the code and each problem", async () => {
    const { host, run } = setup([{ ...github, model: "openai/gpt-5" }], { models: [{ ref: "openai/gpt-4o-mini", alias: "mini" }] });
    const r = await run();
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error).toMatchObject({ reason: "invalid_action", code: "model_not_allowed" });
    expect(r.error.message).toMatch(/^Mapping github matched, but its action is invalid \(the hook would answer 400 model_not_allowed\): /);
    expect(r.error.lines).toEqual([expect.stringMatching(/^ {2}- model: /)]);
    nothingDispatched(host);
  });

  test("a form-encoded body is parsed by its content-type, as a request is", async () => {
    const wake = mapping({ id: "gh-wake", match: { path: "gh" }, action: "wake", textTemplate: "Push to {{ repository.full_name }}" });
    const { run } = setup([wake]);
    const body = Buffer.from(`payload=${encodeURIComponent(push.toString("utf8"))}`);
    const r = await run({ name: "gh", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(r).toMatchObject({ ok: true, value: { outcome: "action", action: { kind: "wake", text: "Push to ada-lab/garden-sensors", mode: "now" } } });
  });
});
