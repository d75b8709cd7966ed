/**
 * `gateway webhooks deliveries replay --hook ci --status 4xx --since 1h` (the same commands inside
 * OpenClaw: registerLedgerCommands) against the plugin served on an ephemeral port: 20 refused
 * deliveries → the preview is printed, `--yes` (or "y" on a terminal) replays exactly 20, once; no
 * terminal and no `--yes`, or an answer other than y, replays nothing (exit 1); an id with a filter,
 * or neither, is refused before any request.
 */
import http from "node:http";
import { PassThrough } from "node:stream";
import type { AddressInfo } from "node:net";
import request from "supertest";
import { Command, CommanderError } from "commander";
import { registerLedgerCommands } from "../../src/cli/ledger-commands";
import { sinceTime } from "../../src/cli/bulk-replay-command";
import { startPluginApp, TEST_TOKEN, type PluginApp } from "../helpers/plugin-app";
import { createFakeHost } from "../helpers/fake-host";
import { makeConfig } from "../mappings/helpers";
import { until } from "../helpers/until";

const AUTH = { Authorization: `Bearer ${TEST_TOKEN}` };
const HOOKS = {
  rateLimit: { enabled: false },
  mappings: [{ id: "ci", match: { path: "ci" }, action: "agent", name: "CI", messageTemplate: "{{ payload.text }}" }],
};

describe("deliveries replay with a filter (bulk)", () => {
  let plugin: PluginApp;
  let server: http.Server;
  let base: string;

  beforeEach(async () => {
    plugin = await startPluginApp({ hooks: HOOKS });
    server = http.createServer(plugin.app);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    for (let i = 0; i < 20; i++) expect((await request(plugin.app).post("/hooks/ci").set(AUTH).send({ n: i })).status).toBe(400);
    await until(async () => (await deliveries()).length === 20, "the 20 refused deliveries in the ledger");
  });
  afterEach(async () => {
    await new Promise((resolve) => server.close(resolve));
    await plugin.close();
  });

  async function deliveries(): Promise<Array<{ id: string; replayOf?: string }>> {
    return (await request(plugin.app).get("/hooks/deliveries?limit=500").set(AUTH)).body.deliveries;
  }
  const replays = async () => (await deliveries()).filter((d) => d.replayOf !== undefined);

  async function run(args: string[], stdin: PassThrough & { isTTY?: boolean } = new PassThrough()): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = "";
    let stderr = "";
    const program = new Command("gateway").exitOverride().configureOutput({ writeOut: (s) => void (stdout += s), writeErr: (s) => void (stderr += s) });
    const webhooks = program.command("webhooks");
    registerLedgerCommands(webhooks, { api: createFakeHost().api, config: { ...makeConfig(), tokenSource: TEST_TOKEN }, stdin });
    let code = 0;
    try {
      await program.parseAsync(["webhooks", "deliveries", "replay", ...args, "--url", base], { from: "user" });
    } catch (e) {
      if (!(e instanceof CommanderError)) throw e;
      code = e.exitCode;
    }
    return { code, stdout, stderr };
  }

  it("--yes: prints the preview, replays the 20 once; exit 1 as their answers are errors", async () => {
    const { code, stdout, stderr } = await run(["--hook", "ci", "--status", "4xx", "--since", "1h", "--yes"]);
    expect(stdout).toMatch(/^Bulk replay of hook ci, status 4xx, since \d{4}-\d\d-\d\dT[\d:.]+Z: 20 deliveries received up to \S+Z\nOldest first: /);
    expect(stdout).toContain("\nReplayed 20 deliveries: 20 × 400 invalid_payload\n");
    expect(stdout.split("\n").filter((l) => / → \S+ {2}400 invalid_payload$/.test(l))).toHaveLength(20);
    expect(stderr).toBe("webhooks: 20 of the 20 replays were answered with an error (listed above); each is recorded as its new delivery\n");
    expect(code).toBe(1);
    await until(async () => (await replays()).length === 20, "the 20 replays");
    await new Promise((r) => setTimeout(r, 100));
    expect(await replays()).toHaveLength(20);
  });

  it("--json: the preview and the replay as the API answered them", async () => {
    const { stdout } = await run(["--hook", "ci", "--yes", "--json"]);
    const body = JSON.parse(stdout) as { preview: { count: number }; replay: { count: number; replayed: unknown[] } };
    expect(body.preview.count).toBe(20);
    expect(body.replay).toMatchObject({ count: 20, failed: 20, repeated: false });
  });

  it("no terminal and no --yes: the preview, nothing replayed, exit 1", async () => {
    const { code, stdout, stderr } = await run(["--hook", "ci"]);
    expect(stdout).toMatch(/^Bulk replay of hook ci: 20 deliveries/);
    expect(stderr).toBe("webhooks: not confirmed: pass --yes to replay the 20 deliveries without asking (stdin is not a terminal); nothing was replayed\n");
    expect(code).toBe(1);
    expect(await replays()).toEqual([]);
  });

  it("on a terminal: y replays, anything else replays nothing", async () => {
    const no = Object.assign(new PassThrough(), { isTTY: true });
    const declined = run(["--hook", "ci"], no);
    await until(() => no.listenerCount("data") > 0 || no.readableFlowing === true, "the question");
    no.end("n\n");
    const d = await declined;
    expect(d.stdout).toContain("Replay these 20 deliveries? [y/N] ");
    expect([d.code, d.stderr]).toEqual([1, "webhooks: not confirmed; nothing was replayed\n"]);
    expect(await replays()).toEqual([]);

    const yes = Object.assign(new PassThrough(), { isTTY: true });
    const accepted = run(["--status", "400"], yes);
    await until(() => yes.listenerCount("data") > 0 || yes.readableFlowing === true, "the question");
    yes.end("y\n");
    expect((await accepted).stdout).toContain("Replayed 20 deliveries");
    await until(async () => (await replays()).length === 20, "the 20 replays");
  });

  it("an id and a filter, or neither: refused before any request", async () => {
    const both = await run(["019a7c3e-5f1b-7c2d-9e4f-0123456789ab", "--hook", "ci"]);
    expect([both.code, both.stderr]).toEqual([
      1,
      "webhooks: give a delivery id or a filter (--hook, --status, --since, --search), not both; nothing was sent\n",
    ]);
    const neither = await run([]);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toMatch(/^webhooks: give a delivery id, or a filter/);
    expect(await replays()).toEqual([]);
  });

  it("a bad filter: the gateway's sentence, exit 1", async () => {
    const { code, stderr } = await run(["--status", "4x", "--yes"]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/answered 400 invalid_request: Query parameter status /);
  });
});

describe("sinceTime", () => {
  it("turns 90m, 1h, 7d into the time that long ago and leaves an ISO time as given", () => {
    const now = Date.parse("2026-12-02T05:00:00.000Z");
    expect(sinceTime("90m", now)).toBe("2026-12-02T03:30:00.000Z");
    expect(sinceTime("1h", now)).toBe("2026-12-02T04:00:00.000Z");
    expect(sinceTime("7d", now)).toBe("2026-11-25T05:00:00.000Z");
    expect(sinceTime("2026-12-01T00:00:00Z", now)).toBe("2026-12-01T00:00:00Z");
    expect(sinceTime(undefined, now)).toBeUndefined();
  });
});
