/**
 * Graceful shutdown of the real gateway (SPEC §7): SIGTERM with
 * a run in progress lets it finish within `hooks.runs.shutdownGraceSeconds`, the
 * gateway exits 0, queued runs stay queued and resume after the restart. A run
 * that outlives the grace is left for recovery and reported as interrupted.
 * Requires the built dist.
 */
import { until } from "../helpers/until";
import fs from "node:fs";
import http from "node:http";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { CRASH_TOKEN, getRun, postJson, queryPluginDb } from "./crash-support";
import { wrappedContent } from "../helpers/wrapped";

jest.setTimeout(120_000);

interface LoadResult {
  /** Client clock (ms) when the answer or the error arrived. */
  at: number;
  status?: number;
  code?: string;
  retryAfter?: string;
  error?: string;
}

/** One authenticated wake on a fresh connection; never rejects. */
function wakeOnce(port: number): Promise<LoadResult> {
  return new Promise((resolve) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port,
        method: "POST",
        path: "/hooks/wake",
        agent: false,
        headers: { authorization: `Bearer ${CRASH_TOKEN}`, "content-type": "application/json" },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (text += d));
        res.on("end", () => {
          const code = text ? (JSON.parse(text) as { code?: string }).code : undefined;
          resolve({ at: Date.now(), status: res.statusCode, code, retryAfter: res.headers["retry-after"] });
        });
        res.on("error", (e: NodeJS.ErrnoException) => resolve({ at: Date.now(), error: e.code ?? e.message }));
      },
    );
    req.on("error", (e: NodeJS.ErrnoException) => resolve({ at: Date.now(), error: e.code ?? e.message }));
    req.end(JSON.stringify({ text: "load", mode: "next-heartbeat" }));
  });
}

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
    const texts = gw
      .journal()
      .filter((e) => e.type === "system_event")
      .map((e) => wrappedContent(String(e.text)));
    expect(texts.filter((t) => t.startsWith("Hook A: echo: "))).toHaveLength(1);
    expect(texts.some((t) => t.includes("(interrupted)"))).toBe(false);
    expect([dbStatus(a), dbStatus(b), dbStatus(c)]).toEqual(["succeeded", "queued", "queued"]);

    gw = await startGateway({ dir, config: config(50, 10), startTimeoutMs: 60_000 });
    await until(async () => (await statusOf(c)) === "succeeded", "run C to finish after the restart", { timeoutMs: 20_000 });
    expect(await statusOf(b)).toBe("succeeded");
    // A run's summary reaches the journal after its status is stored: wait for C's, then count.
    const summaries = () =>
      gw!
        .journal()
        .filter((e) => e.type === "system_event")
        .map((e) => wrappedContent(String(e.text)));
    await until(() => summaries().some((t) => t.startsWith("Hook C: echo: ")), "run C's summary in the journal", { timeoutMs: 10_000 });
    const after = summaries();
    expect(after.filter((t) => /^Hook [ABC]: echo: /.test(t)).map((t) => t.slice(0, 6))).toEqual(["Hook A", "Hook B", "Hook C"]);
    expect(await gw.stop("SIGTERM")).toBe(0);
  });

  it("SIGTERM under load: new requests get 503 shutting_down with Retry-After, and no ECONNREFUSED until the running run finished (regression)", async () => {
    gw = await startGateway({ dir, config: config(3000, 10), startTimeoutMs: 60_000 });
    const a = await agent("Slow");
    await until(async () => (await statusOf(a)) === "running", "run Slow running", { timeoutMs: 10_000 });
    let exited = false;
    const exit = gw.stop("SIGTERM");
    void exit.then(() => (exited = true));
    const results: LoadResult[] = [];
    const loop = async () => {
      while (!exited) {
        const r = await wakeOnce(gw!.port);
        results.push(r);
        // After the listener closed, slow down until the process is gone.
        if (r.error) await new Promise((x) => setTimeout(x, 20));
      }
    };
    await Promise.all([loop(), loop(), loop(), loop()]);
    expect(await exit).toBe(0);

    const finished = gw.journal().find((e) => e.type === "system_event" && wrappedContent(String(e.text)).startsWith("Hook Slow: echo: "));
    expect(finished).toBeDefined();
    const finishedAt = Date.parse(finished!.ts);
    const answered = results.filter((r) => r.status !== undefined);
    const refusals = results.filter((r) => r.error !== undefined);
    // While the run drained, every request got the retryable answer (a 200 can only be a request that raced the signal).
    const shuttingDown = answered.filter((r) => r.status === 503);
    expect(shuttingDown.length).toBeGreaterThan(20);
    for (const r of shuttingDown) expect([r.code, r.retryAfter]).toEqual(["shutting_down", "5"]);
    expect(answered.filter((r) => r.status !== 503 && r.status !== 200)).toEqual([]);
    // The listener closed only after the run had finished and was reported.
    for (const r of refusals) expect(r.at).toBeGreaterThanOrEqual(finishedAt);
    expect(dbStatus(a)).toBe("succeeded");
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
