import fs from "node:fs";
import path from "node:path";
import { Command, CommanderError } from "commander";
import type { MappingConfig } from "../../src/config/types";
import { registerDryRunCommand } from "../../src/cli/webhooks-test";
import { createMappingEngine } from "../../src/mappings/engine";
import { createFakeHost, type FakeHost } from "../helpers/fake-host";
import { captureLogger, makeConfig, mapping, PAYLOAD_FIXTURES, tempDir } from "../mappings/helpers";

const githubMapping = mapping({
  id: "github",
  match: { path: "github" },
  name: "GitHub",
  sessionKey: "github:{{ repository.full_name }}",
  messageTemplate: "{{ headers.x-github-event }}: {{ commits[1].message | truncate: 26 }} in {{ repository.full_name }}",
  channel: "bot_chat",
  to: "4711",
});

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  host: FakeHost;
}

async function runCli(args: string[], mappings: MappingConfig[] = [githubMapping], hostOpts: Parameters<typeof createFakeHost>[0] = {}): Promise<Run> {
  const host = createFakeHost(hostOpts);
  const config = makeConfig({ mappings, presets: ["mail"] });
  const logs = captureLogger();
  const engine = createMappingEngine({ config, presets: [], logger: logs });
  let stdout = "";
  let stderr = "";
  const program = new Command("gateway").exitOverride().configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
  registerDryRunCommand(program.command("webhooks"), { api: host.api, config, mappings: engine, logs: { forModule: () => logs } });
  let code = 0;
  try {
    await program.parseAsync(["webhooks", "test", ...args], { from: "user" });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    code = e.exitCode;
  }
  return { code, stdout, stderr, host };
}

function nothingDispatched(host: FakeHost): void {
  expect(host.systemEvents).toEqual([]);
  expect(host.heartbeats).toEqual([]);
  expect(host.turns).toEqual([]);
  expect(host.deliveries).toEqual([]);
}

const pushFile = path.join(PAYLOAD_FIXTURES, "github-push.json");

describe("gateway webhooks test (dry run)", () => {
  test("prints the matched mapping and the validated action, dispatching nothing", async () => {
    const r = await runCli(["github", "--payload", pushFile, "--header", "X-GitHub-Event: push"]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      [
        "Hook:     github",
        "Mapping:  github (hooks.mappings[0])",
        "Outcome:  agent run (the hook would answer 202)",
        "Name:     GitHub",
        "Session:  hook:github:ada-lab/garden-sensors",
        "Wake:     now",
        "Delivery: channel bot_chat, to 4711",
        "Model:    (host default)",
        "Thinking: (default)",
        "Timeout:  600 s",
        "Content:  wrapped as untrusted external content",
        "Message:",
        "  push: Add weekly watering report… in ada-lab/garden-sensors",
        "",
        "Dry run: nothing was dispatched.",
        "",
      ].join("\n"),
    );
    nothingDispatched(r.host);
  });

  test("--json prints the exact validated action", async () => {
    const r = await runCli(["mail", "--payload", path.join(PAYLOAD_FIXTURES, "mail-push-3.json"), "--json"]);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      ok: true,
      hook: "mail",
      mapping: { id: "mail", key: 'hooks.presets "mail" (mail)' },
      outcome: "action",
      allowUnsafeExternalContent: false,
      sessionKeyGenerated: false,
      dispatched: false,
      action: {
        kind: "agent",
        name: "Mail",
        sessionKey: "hook:mail:CAF3x9k2Zp1qW7v@mail.example.org",
        channel: "last",
        deliver: true,
        wakeMode: "now",
        timeoutSeconds: 600,
      },
    });
    expect(report.action.message).toContain("3. From: Garden Club <club@lists.example.com>");
    nothingDispatched(r.host);
  });

  test("a wake mapping and a form-encoded payload file", async () => {
    const dir = tempDir();
    try {
      const file = path.join(dir, "form.txt");
      fs.writeFileSync(file, `payload=${encodeURIComponent(fs.readFileSync(pushFile, "utf8"))}`);
      const wake = mapping({ id: "gh-wake", match: { path: "gh" }, action: "wake", textTemplate: "Push to {{ repository.full_name }}" });
      const r = await runCli(["gh", "--payload", file, "--header", "content-type: application/x-www-form-urlencoded"], [wake]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(
        "Outcome:  wake (the hook would answer 200)\nMode:     now\nContent:  wrapped as untrusted external content\nText:\n  Push to ada-lab/garden-sensors\n",
      );
      nothingDispatched(r.host);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a generated session key is marked as such", async () => {
    const r = await runCli(["plain", "--payload", pushFile], [mapping({ id: "plain", match: { path: "plain" }, messageTemplate: "x" })]);
    expect(r.stdout).toMatch(/Session: {2}hook:[0-9a-f-]{36} \(generated: a new key per request\)/);
  });

  test("no match exits 1 and lists the mappings", async () => {
    const r = await runCli(["gitlab", "--payload", pushFile]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        'webhooks test: No mapping matches "gitlab" (the hook would answer 404 not_found).',
        "Mappings, in match order:",
        '  github (hooks.mappings[0]): path "github", agent',
        '  mail (hooks.presets "mail" (mail)): path "mail", agent',
        '  mail-source (hooks.presets "mail" (mail-source)): source "mail", agent',
        "",
      ].join("\n"),
    );
    nothingDispatched(r.host);
  });

  test("an action that fails validation exits 1 with the code and each problem", async () => {
    const m = mapping({ id: "gh", match: { path: "github" }, model: "openai/gpt-5", messageTemplate: "x" });
    const r = await runCli(["github", "--payload", pushFile], [m], { models: [{ ref: "openai/gpt-4o-mini", alias: "mini" }] });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Mapping gh matched, but its action is invalid (the hook would answer 400 model_not_allowed)");
    nothingDispatched(r.host);
  });

  test("a transform that skips reports the 204", async () => {
    const r = await runCli(["quiet", "--payload", pushFile], [mapping({ id: "quiet", match: { path: "quiet" }, transform: { module: "skip.js" } })]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("Outcome:  skipped — the transform returned null (the hook would answer 204)");
  });

  test("an invalid mail push exits 1 naming the fields", async () => {
    const r = await runCli(["mail", "--payload", pushFile]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "webhooks test: The hook would fail with 400 invalid_payload: The mail push is invalid.\n  - messages: messages must be an array of mail messages\n",
    );
  });

  test.each([
    [["wake", "--payload", pushFile], 'webhooks test: "wake" is a direct endpoint, not a mapped hook; webhooks test dry-runs /hooks/<name> mappings\n'],
    [["github", "--payload", "/nonexistent/p.json"], "webhooks test: cannot read --payload /nonexistent/p.json: ENOENT\n"],
    [["github", "--payload", pushFile, "--header", "no-colon"], 'webhooks test: --header "no-colon" must look like "Name: value"\n'],
    [["github", "--payload", pushFile, "--query", "novalue"], 'webhooks test: --query "novalue" must look like "name=value"\n'],
  ])("bad input %j exits 1 with a clear message", async (args, message) => {
    const r = await runCli(args);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(message);
  });

  test("a payload that is not a JSON object exits 1", async () => {
    const dir = tempDir();
    try {
      fs.writeFileSync(path.join(dir, "a.json"), "[1,2]");
      const r = await runCli(["github", "--payload", path.join(dir, "a.json")]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`--payload ${path.join(dir, "a.json")}: The body must be a JSON object, not an array. (invalid_json)`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
