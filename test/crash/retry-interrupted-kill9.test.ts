/**
 * `hooks.runs.retryInterrupted` on the real gateway process (SPEC §7): a run that is
 * running whenever the gateway dies (a payload that kills the runner or the host) is
 * queued again after each `kill -9` only until it was started MAX_RUN_ATTEMPTS times;
 * the next start records it interrupted, reports it once and does not start it again.
 * With several runs running at a crash, none is counted and each is started again
 * alone, so a run that ran beside the poison run finishes. Requires the built dist.
 */
import fs from "node:fs";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { CRASH_TOKEN, getRun, postJson, queryPluginDb } from "./crash-support";
import { until } from "../helpers/until";
import { wrappedContent } from "../helpers/wrapped";
import { gaveUpReason, MAX_RUN_ATTEMPTS } from "../../src/runs/recovery";

jest.setTimeout(180_000);

const CONFIG = {
  hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false }, runs: { maxConcurrent: 1, retryInterrupted: true } },
  // The echo runner holds every turn for a minute: the run is running when it is killed.
  agents: { runner: { kind: "echo", delayMs: 60_000 }, defaults: { heartbeat: { every: "off" } } },
};

describe("retryInterrupted after kill -9 (real gateway)", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  const start = async () => (gw = await startGateway({ dir, config: CONFIG, startTimeoutMs: 60_000 }));

  beforeAll(() => {
    dir = makeGatewayDir("gw-retry-");
  });
  afterAll(async () => {
    await gw?.kill9();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("regression: a run killed with the gateway at every start crash-looped it for ever; after MAX_RUN_ATTEMPTS kill -9s the next start records it interrupted with a summary and does not run it again", async () => {
    await start();
    const accepted = await postJson(gw!, "agent", { message: "poison payload", name: "Poison", deliver: false, wakeMode: "next-heartbeat" });
    expect(accepted.status).toBe(202);
    const runId = accepted.body!.runId as string;
    const row = () => queryPluginDb<{ status: string; attempts: number }>(gw!.stateDir, "SELECT status, attempts FROM runs WHERE id = ?", runId)[0];

    for (let attempt = 1; attempt <= MAX_RUN_ATTEMPTS; attempt++) {
      await until(() => row()?.status === "running" && row()?.attempts === attempt, `start ${attempt} of the run`, { timeoutMs: 30_000 });
      await gw!.kill9();
      await start();
    }

    const summary = `Hook Poison (interrupted): ${gaveUpReason(MAX_RUN_ATTEMPTS)}`;
    await until(
      async () => ((await getRun(gw!, runId)).body?.run as { status?: string } | undefined)?.status === "interrupted",
      "the run recorded interrupted",
      { timeoutMs: 30_000 },
    );
    expect((await getRun(gw!, runId)).body!.run).toMatchObject({ id: runId, status: "interrupted", name: "Poison", summary });
    await until(
      () => gw!.journal().some((e) => e.type === "system_event" && e.sessionKey === "main" && wrappedContent(String(e.text)) === summary),
      "the summary on the main session",
      { timeoutMs: 30_000 },
    );
    // Not started again: still MAX_RUN_ATTEMPTS starts, and nothing running.
    await new Promise((r) => setTimeout(r, 500));
    expect(row()).toEqual({ status: "interrupted", attempts: MAX_RUN_ATTEMPTS });
    expect(queryPluginDb<{ n: number }>(gw!.stateDir, "SELECT COUNT(*) AS n FROM runs WHERE status IN ('queued', 'running')")[0]!.n).toBe(0);
    const logs = `${gw!.stdout()}\n${gw!.stderr()}`.split("\n").filter((l) => l.includes("not queued again"));
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(runId);
    expect(logs[0]).not.toContain("poison payload");
    expect(await gw!.stop("SIGTERM")).toBe(0);
  });
});

describe("retryInterrupted with runs in parallel, after kill -9 (real gateway)", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  // Each turn takes 6 s: the test kills the gateway whenever the poison run is running, the other run finishes.
  const config = {
    ...CONFIG,
    hooks: { ...CONFIG.hooks, runs: { maxConcurrent: 2, retryInterrupted: true } },
    agents: { ...CONFIG.agents, runner: { kind: "echo", delayMs: 6_000 } },
  };
  const start = async () => (gw = await startGateway({ dir, config, startTimeoutMs: 60_000 }));

  beforeAll(() => {
    dir = makeGatewayDir("gw-retry-beside-");
  });
  afterAll(async () => {
    await gw?.kill9();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("regression: a run that was running beside a poison run is not given up (with maxConcurrent 2 both were counted at every kill -9 and both were recorded interrupted); the poison run is, after MAX_RUN_ATTEMPTS kills while it ran alone", async () => {
    await start();
    const post = async (name: string) => {
      const accepted = await postJson(gw!, "agent", {
        message: `${name} payload`,
        name,
        sessionKey: `hook:${name}`,
        deliver: false,
        wakeMode: "next-heartbeat",
      });
      expect(accepted.status).toBe(202);
      return accepted.body!.runId as string;
    };
    const poison = await post("Poison");
    const innocent = await post("Innocent");
    const rows = () =>
      queryPluginDb<{ id: string; status: string; attempts: number }>(
        gw!.stateDir,
        "SELECT id, status, attempts FROM runs WHERE id IN (?, ?) ORDER BY seq",
        poison,
        innocent,
      );
    const status = (id: string) => rows().find((r) => r.id === id)?.status;
    await until(() => rows().every((r) => r.status === "running"), "both runs running", { timeoutMs: 30_000 });

    // The poison run kills the gateway whenever it runs.
    let kills = 0;
    while (status(poison) !== "interrupted" && kills <= 2 * MAX_RUN_ATTEMPTS) {
      await gw!.kill9();
      kills++;
      await start();
      await until(() => status(poison) === "running" || status(poison) === "interrupted", `the poison run after kill ${kills}`, { timeoutMs: 30_000 });
      if (status(poison) === "running") expect(status(innocent)).toBe("queued"); // it runs alone
    }

    expect(kills).toBe(1 + MAX_RUN_ATTEMPTS); // one with both running (counted against neither), then each start of the poison run alone
    await until(() => status(innocent) === "succeeded", "the innocent run succeeded", { timeoutMs: 30_000 });
    expect((await getRun(gw!, innocent)).body!.run).toMatchObject({ id: innocent, status: "succeeded", name: "Innocent" });
    expect((await getRun(gw!, poison)).body!.run).toMatchObject({
      id: poison,
      status: "interrupted",
      summary: `Hook Poison (interrupted): ${gaveUpReason(MAX_RUN_ATTEMPTS)}`,
    });
    expect(rows()).toEqual([
      { id: poison, status: "interrupted", attempts: MAX_RUN_ATTEMPTS },
      { id: innocent, status: "succeeded", attempts: 1 },
    ]);
    expect(await gw!.stop("SIGTERM")).toBe(0);
  });
});
