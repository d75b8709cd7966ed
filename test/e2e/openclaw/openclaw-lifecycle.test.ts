/**
 * "A 2xx means it will happen, once" across OpenClaw's stops, restarts and reloads (SPEC §7 "In every host",
 * §15; issue 32): a keyed /agent in flight while the model is slow, a second queued behind it and a wake
 * answered 200, then SIGTERM.
 *
 * Skipped like openclaw-gateway.test.ts when the pinned Node 24 and openclaw are not cached.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { until } from "../../helpers/until";
import { packedTarball } from "../../helpers/packed-tarball";
import { startFakeModel, type FakeModel } from "./fake-model";
import { findPrerequisites, freePort, getJson, OpenClawHost } from "./openclaw-host";

const HOOK_TOKEN = "e2e-lifecycle-hook-token-0123456789";
const GATEWAY_TOKEN = "e2e-lifecycle-gateway-token-0123456789";
/** A start of OpenClaw takes 2–5 minutes on a loaded two-core machine. */
const SLOW = { timeoutMs: 900_000, intervalMs: 500 };
const MODEL_DELAY_MS = 5_000;
/** The plugin's grace (≤ 30 s in all, SPEC §7), plus what a loaded two-core CI machine adds to OpenClaw's own close. */
const STOP_BOUND_SECONDS = 60;

const prereq = findPrerequisites();
const missing = "missing" in prereq ? prereq.missing : undefined;
const inCi = process.env.CI === "true";
if (missing && !inCi) process.stderr.write(`\nOpenClaw lifecycle e2e suite skipped: ${missing}.\n\n`);

function passed(name: string): void {
  const marker = process.env.OPENCLAW_E2E_MARKER;
  if (marker) fs.appendFileSync(marker, `ok lifecycle: ${name}\n`);
}

(missing && !inCi ? describe.skip : describe)("OpenClaw stops, restarts and reloads with runs and wakes pending (openclaw 2026.9.6, Node 24)", () => {
  let host: OpenClawHost;
  let model: FakeModel;
  let dir: string;
  const unique = (what: string) => `${what}-${crypto.randomBytes(5).toString("hex")}`;
  const detail = () => `--- gateway output (tail) ---\n${host.log().slice(-8000)}\n--- model requests: ${model.requests.length}`;
  const get = (p: string) => getJson(`${host.baseUrl}${p}`, HOOK_TOKEN);
  const post = (p: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${host.baseUrl}${p}`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    });
  const pluginServes = (what: string) => host.pluginServes(what, { ...SLOW, detail });
  const runOf = async (id: string) => (await get(`/webhooks/runs/${id}`)).run as { status: string; summary?: string; error?: string };
  const ended = (id: string) => until(async () => !["queued", "running"].includes((await runOf(id))?.status), `run ${id} to end`, { ...SLOW, detail });
  const runIdOf = async (res: Response) => ((await res.json()) as { runId: string }).runId;
  /** Sets runs.retryInterrupted in the plugin's section (read when the plugin starts). */
  const setRetryInterrupted = (on: boolean) => {
    const config = host.readConfig() as { plugins: { entries: Record<string, { config: { runs: Record<string, unknown> } }> } };
    config.plugins.entries["inbound-webhooks"]!.config.runs.retryInterrupted = on;
    host.writeConfig(config);
  };
  /**
   * The main-session reports of run `name` as the model saw them: the ids of the untrusted-content wrappers around
   * `Hook <name> (interrupted)` in every chat request. Each post of a summary is wrapped afresh (a new id), and a
   * later turn of the main session repeats the earlier ones in its history (the same id): one id is one report.
   */
  const interruptedReports = (name: string): Set<string> => {
    const text = `Hook ${name} (interrupted)`;
    const opening = "EXTERNAL_UNTRUSTED_CONTENT id=";
    const ids = new Set<string>();
    for (const r of model.requests) {
      for (let at = r.body.indexOf(text); at >= 0; at = r.body.indexOf(text, at + text.length)) {
        const open = r.body.lastIndexOf(opening, at);
        if (open < 0) continue;
        const rest = r.body.slice(open + opening.length, open + opening.length + 80).replace(/^\\?"/, "");
        ids.add(rest.slice(0, rest.search(/[\\"]/)));
      }
    }
    return ids;
  };

  beforeAll(async () => {
    if (missing) throw new Error(`CI=true and a prerequisite of the OpenClaw suite is missing: ${missing}`);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-openclaw-lifecycle-"));
    // A slow model: every answer takes MODEL_DELAY_MS, so the stop comes while the first run waits for it.
    model = await startFakeModel(undefined, { delayMs: MODEL_DELAY_MS });
    host = new OpenClawHost(prereq as { node24: string; openclaw: string }, dir, await freePort());
    host.writeConfig({
      gateway: { mode: "local", port: host.port, bind: "loopback", auth: { mode: "token", token: GATEWAY_TOKEN } },
      models: { providers: { fake: { api: "openai-completions", baseUrl: model.baseUrl, apiKey: "fake-key", models: [{ id: "fake-1", name: "Fake 1" }] } } },
      agents: { defaults: { model: { primary: "fake/fake-1" } } },
    });
    const tgz = packedTarball(dir);
    const install = await host.cli(["plugins", "install", `npm-pack:${tgz}`, "--force", "--accept-capabilities"]);
    if (install.status !== 0) throw new Error(`openclaw plugins install failed (${install.status}):\n${install.stdout}\n${install.stderr}`);
    const config = host.readConfig() as { plugins: { entries: Record<string, Record<string, unknown>> } };
    config.plugins.entries["inbound-webhooks"] = {
      ...config.plugins.entries["inbound-webhooks"],
      enabled: true,
      // OpenClaw blocks a non-bundled plugin's llm_input hook without it: the plugin's signal that a kept wake was taken.
      hooks: { allowConversationAccess: true },
      config: { token: HOOK_TOKEN, runs: { retryInterrupted: true } },
    };
    host.writeConfig(config);
    host.start();
    await pluginServes("the plugin's /webhooks route to serve inside OpenClaw");
  }, 1_500_000);

  afterAll(async () => {
    await host?.stop();
    await model?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  }, 120_000);

  it("SIGTERM with a keyed run in flight, one queued and a wake: the stop is bounded; after the restart both runs succeed once, keyed retries replay them, the wake reaches the model", async () => {
    const first = { key: unique("first"), message: unique("first-run") };
    const second = { key: unique("second"), message: unique("second-run") };
    const wake = unique("wake-text");
    const sessionKey = `hook:lifecycle-${crypto.randomBytes(3).toString("hex")}`;
    const a = await post("/webhooks/agent", { message: first.message, sessionKey }, { "idempotency-key": first.key });
    expect(a.status).toBe(202);
    const firstId = ((await a.json()) as { runId: string }).runId;
    await until(() => model.chatsContaining(first.message).length > 0, "the first run's turn to reach the model", { ...SLOW, detail });
    const b = await post("/webhooks/agent", { message: second.message, sessionKey }, { "idempotency-key": second.key });
    expect(b.status).toBe(202);
    const secondId = ((await b.json()) as { runId: string }).runId;
    expect((await post("/webhooks/wake", { text: wake, mode: "next-heartbeat" })).status).toBe(200);

    const stopStarted = Date.now();
    await host.stop(600_000);
    const stopSeconds = (Date.now() - stopStarted) / 1000;
    process.stderr.write(`\nOpenClaw stop with a run in flight took ${stopSeconds.toFixed(1)} s\n`);
    fs.writeFileSync(path.join(os.tmpdir(), "oclife-stop-log.txt"), host.log());
    const callsBefore = model.chatsContaining(first.message).length;
    host.start();
    await pluginServes("the plugin to serve again after the restart");
    await ended(firstId);
    await ended(secondId);
    const runs = [await runOf(firstId), await runOf(secondId)];
    process.stderr.write(`runs after restart: ${JSON.stringify(runs.map((r) => r.status))}; first run's model calls ${callsBefore} before the restart\n`);
    expect(runs.map((r) => r.status)).toEqual(["succeeded", "succeeded"]);
    // Keyed retries answer the same runs and call the model no further.
    const calls = [model.chatsContaining(first.message).length, model.chatsContaining(second.message).length];
    const retryA = await post("/webhooks/agent", { message: first.message, sessionKey }, { "idempotency-key": first.key });
    const retryB = await post("/webhooks/agent", { message: second.message, sessionKey }, { "idempotency-key": second.key });
    expect([retryA.headers.get("idempotent-replayed"), ((await retryA.json()) as { runId: string }).runId]).toEqual(["true", firstId]);
    expect([retryB.headers.get("idempotent-replayed"), ((await retryB.json()) as { runId: string }).runId]).toEqual(["true", secondId]);
    await new Promise((r) => setTimeout(r, 3000));
    expect([model.chatsContaining(first.message).length, model.chatsContaining(second.message).length]).toEqual(calls);
    // The wake answered 200 before the stop (OpenClaw kept it in memory only) reaches the model after the restart.
    await until(() => model.chatsContaining(wake).length > 0, "the wake's text to reach the model after the restart", { ...SLOW, detail });
    // Measured 330.1 s before runs started on a tracked root (OpenClaw's whole drain budget); after: 27.6 s (model 5 s) and 36.1 s (model 10 s) at a load of 15–19 on two cores.
    expect(stopSeconds).toBeLessThan(STOP_BOUND_SECONDS);
    passed("stop with runs in flight, retryInterrupted");
  }, 2_400_000);
  // Without retryInterrupted (the default): the runs OpenClaw's stop cut off are recorded interrupted and reported once to
  // the main session, never failed; a run still queued (it never started) is kept and runs at the next start (SPEC §7).
  it("SIGTERM with two keyed runs in flight and one queued, without retryInterrupted: both cut-off runs end interrupted, reported once, never failed; the queued one runs after the restart", async () => {
    const [s1, s2] = [`hook:lifecycle-${crypto.randomBytes(3).toString("hex")}`, `hook:lifecycle-${crypto.randomBytes(3).toString("hex")}`];
    const runs = [
      { key: unique("cut-a"), message: unique("cut-a-run"), name: unique("cuta"), sessionKey: s1 },
      { key: unique("cut-b"), message: unique("cut-b-run"), name: unique("cutb"), sessionKey: s2 },
      // Queued behind the first on its session: it has not started when the stop comes.
      { key: unique("queued-c"), message: unique("queued-c-run"), name: unique("queuedc"), sessionKey: s1 },
    ];
    const send = (r: (typeof runs)[number]) =>
      post("/webhooks/agent", { message: r.message, name: r.name, sessionKey: r.sessionKey }, { "idempotency-key": r.key });
    // The model holds its answers: both turns wait for it when the stop comes, however slowly OpenClaw starts them.
    model.hold();
    const ids: string[] = [];
    for (const r of runs.slice(0, 2)) {
      const res = await send(r);
      expect(res.status).toBe(202);
      ids.push(await runIdOf(res));
    }
    await until(() => runs.slice(0, 2).every((r) => model.chatsContaining(r.message).length > 0), "both runs' turns to reach the model", { ...SLOW, detail });
    const c = await send(runs[2]!);
    expect(c.status).toBe(202);
    ids.push(await runIdOf(c));

    // SIGTERM; the model answers during OpenClaw's drain (as in the report), after the plugin's waits were refused.
    const stopStarted = Date.now();
    const stopped = host.stop(600_000);
    await new Promise((r) => setTimeout(r, 2000));
    model.release();
    await stopped;
    const stopSeconds = (Date.now() - stopStarted) / 1000;
    process.stderr.write(`\nOpenClaw stop with two runs in flight (no retryInterrupted) took ${stopSeconds.toFixed(1)} s\n`);
    setRetryInterrupted(false);
    host.start();
    await pluginServes("the plugin to serve again after the restart (retryInterrupted off)");
    for (const id of ids) await ended(id);
    const after = await Promise.all(ids.map(runOf));
    process.stderr.write(`runs after restart (no retryInterrupted): ${JSON.stringify(after.map((r) => r.status))}\n`);
    expect(after.map((r) => r.status)).toEqual(["interrupted", "interrupted", "succeeded"]);
    for (const r of after.slice(0, 2)) expect(r.summary).toContain("plugins.entries.inbound-webhooks.config.runs.retryInterrupted");

    // Reported to the main session: each interrupted run's report reaches the model, one report each.
    for (const r of runs.slice(0, 2))
      await until(() => interruptedReports(r.name).size > 0, `run ${r.name}'s interrupted report to reach the model`, { ...SLOW, detail });
    expect(runs.slice(0, 2).map((r) => interruptedReports(r.name).size)).toEqual([1, 1]);
    // Keyed retries answer the same runs (the interrupted ones too, never a failure) and call the model no further.
    const calls = () => runs.map((r) => model.chatsContaining(r.message).length);
    const before = calls();
    for (const [i, r] of runs.entries()) {
      const retry = await send(r);
      expect([retry.status, retry.headers.get("idempotent-replayed"), await runIdOf(retry)]).toEqual([202, "true", ids[i]]);
    }
    await new Promise((r) => setTimeout(r, 3000));
    expect(calls()).toEqual(before);
    // One model call per cut-off run: the first run's message is in its own turn only (and in the history of the queued
    // run's turn, which shares its session); the second run's in its own turn only.
    expect(model.chatsContaining(runs[0]!.message).filter((q) => !q.body.includes(runs[2]!.message))).toHaveLength(1);
    expect(model.chatsContaining(runs[1]!.message)).toHaveLength(1);
    expect(model.chatsContaining(runs[2]!.message)).toHaveLength(1);
    expect(stopSeconds).toBeLessThan(STOP_BOUND_SECONDS);
    passed("stop with runs in flight, no retryInterrupted: interrupted, reported once");
  }, 2_400_000);
});
