/**
 * Graceful shutdown of the real gateway (SPEC §7, issue 5 check 5): SIGTERM with
 * a run in progress lets it finish within `hooks.runs.shutdownGraceSeconds`, the
 * gateway exits 0, queued runs stay queued and resume after the restart. A run
 * that outlives the grace is left for recovery and reported as interrupted.
 * Requires the built dist.
 */
import { until } from "../helpers/until";
import fs from "node:fs";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { CRASH_TOKEN, getRun, postJson, queryPluginDb } from "./crash-support";
import { wrappedContent } from "../helpers/wrapped";

jest.setTimeout(120_000);

const config = (delayMs: number, shutdownGraceSeconds: number) => ({
  hooks: { enabled: true, token: CRASH_TOKEN, rateLimit: { enabled: false }, runs: { maxConcurrent: 1, shutdownGraceSeconds } },
  agents: { runner: { kind: "echo", delayMs }, defaults: { heartbeat: { every: "off" } } },
});

describe("graceful shutdown of the gateway", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;

  beforeEach(() => {
    dir = makeGatewayDir("gw-shutdown-");
  });
  afterEach(async () => {
    await gw?.kill9();
    gw = undefined;
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const agent = async (name: string) => {
    const res = await postJson(gw!, "agent", { message: `shutdown-${name}`, name, deliver: false, wakeMode: "next-heartbeat" });
    expect(res.status).toBe(202);
    return res.body!.runId as string;
  };
  const statusOf = async (id: string) => ((await getRun(gw!, id)).body!.run as { status: string }).status;
  const dbStatus = (id: string) => queryPluginDb<{ status: string }>(gw!.stateDir, "SELECT status FROM runs WHERE id = ?", id)[0]?.status;

  it("SIGTERM with a run in progress: the run finishes, exit 0, queued runs resume after restart", async () => {
    gw = await startGateway({ dir, config: config(1500, 10), startTimeoutMs: 60_000 });
    const a = await agent("A");
    const b = await agent("B");
    const c = await agent("C");
    await until(async () => (await statusOf(a)) === "running", "run A running", { timeoutMs: 10_000 });

    expect(await gw.stop("SIGTERM")).toBe(0);
    // Run summaries reach the main session wrapped as untrusted content (SPEC §5.3).
    const texts = gw.journal().filter((e) => e.type === "system_event").map((e) => wrappedContent(String(e.text)));
    expect(texts.filter((t) => t.startsWith("Hook A: echo: "))).toHaveLength(1);
    expect(texts.some((t) => t.includes("(interrupted)"))).toBe(false);
    expect([dbStatus(a), dbStatus(b), dbStatus(c)]).toEqual(["succeeded", "queued", "queued"]);

    gw = await startGateway({ dir, config: config(50, 10), startTimeoutMs: 60_000 });
    await until(async () => (await statusOf(c)) === "succeeded", "run C to finish after the restart", { timeoutMs: 20_000 });
    expect(await statusOf(b)).toBe("succeeded");
    const after = gw.journal().filter((e) => e.type === "system_event").map((e) => wrappedContent(String(e.text)));
    expect(after.filter((t) => /^Hook [ABC]: echo: /.test(t)).map((t) => t.slice(0, 6))).toEqual(["Hook A", "Hook B", "Hook C"]);
    expect(await gw.stop("SIGTERM")).toBe(0);
  });

  it("a run that outlives the grace period is cancelled, the gateway still exits 0, and the restart reports it interrupted", async () => {
    gw = await startGateway({ dir, config: config(20_000, 0.2), startTimeoutMs: 60_000 });
    const a = await agent("Slow");
    await until(async () => (await statusOf(a)) === "running", "the run running", { timeoutMs: 10_000 });
    expect(await gw.stop("SIGTERM")).toBe(0);
    expect(dbStatus(a)).toBe("running");

    gw = await startGateway({ dir, config: config(0, 10), startTimeoutMs: 60_000 });
    expect(await statusOf(a)).toBe("interrupted");
    const reported = gw.journal().filter((e) => e.type === "system_event" && wrappedContent(String(e.text)).startsWith("Hook Slow (interrupted): "));
    expect(reported).toHaveLength(1);
    expect(await gw.stop("SIGTERM")).toBe(0);
  });
});
