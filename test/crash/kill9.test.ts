/**
 * Crash suite (SPEC §7): the real gateway with a slow echo
 * runner accepts 200 `/agent` runs — a third with idempotency keys, some sent
 * twice at once — and is killed with SIGKILL three times mid-way (once while
 * requests are in flight), then restarted on the same state. Afterwards:
 *   - every accepted (202) run exists and ended exactly once: succeeded, or
 *     interrupted and reported on the main session as `Hook <name> (interrupted): …`;
 *   - no idempotency key produced two runs or ran its agent turn twice;
 *   - a key whose response was lost to the kill, retried, ran at most once;
 *   - keys replay the same run across all restarts.
 * Requires the built dist (`npm test` builds it first).
 */
import { until } from "../helpers/until";
import fs from "node:fs";
import { makeGatewayDir, startGateway, type GatewayProcess, type JournalEntry } from "../helpers/gateway-process";
import { CRASH_TOKEN, getRun, pool, postJson, queryPluginDb, type HttpResult } from "./crash-support";
import { wrappedContent } from "../helpers/wrapped";

jest.setTimeout(240_000);

const TOTAL = 200;
const PER_PHASE = 50;
const RUNNER_DELAY_MS = 60;

interface Req {
  i: number;
  body: { message: string; name: string; sessionKey: string; deliver: false; wakeMode: "next-heartbeat" };
  key?: string;
  /** Sent twice at the same moment. */
  twice: boolean;
}

function requestOf(i: number): Req {
  const phase = Math.floor(i / PER_PHASE);
  // Phase 2 is killed with requests in flight: all of them carry keys so they can be retried safely.
  const keyed = phase === 2 || i % 3 === 0;
  return {
    i,
    body: { message: `crash-run-${i}.`, name: `R${i}`, sessionKey: `hook:crash-${i % 7}`, deliver: false, wakeMode: "next-heartbeat" },
    key: keyed ? `crash-key-${i}` : undefined,
    twice: keyed && phase !== 2 && i % 2 === 0,
  };
}

const CONFIG = {
  hooks: {
    enabled: true,
    token: CRASH_TOKEN,
    rateLimit: { enabled: false },
    runs: { maxConcurrent: 4, maxQueued: 1000, retryInterrupted: false, shutdownGraceSeconds: 5 },
  },
  agents: { runner: { kind: "echo", delayMs: RUNNER_DELAY_MS }, defaults: { heartbeat: { every: "off" } } },
};

describe("crash suite: kill -9 while accepting and running", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  const start = async () => (gw = await startGateway({ dir, config: CONFIG, startTimeoutMs: 60_000 }));

  beforeAll(() => {
    dir = makeGatewayDir("gw-crash-");
  });
  afterAll(async () => {
    await gw?.kill9();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("accounts for every accepted run exactly once across three kill -9s", async () => {
    /** runId → the request that got it. */
    const accepted = new Map<string, Req>();
    /** key → every runId answered for it. */
    const runIdsByKey = new Map<string, Set<string>>();
    let lostToKill: Req[] = [];
    let replays = 0;

    const record = (req: Req, res: HttpResult) => {
      expect(res.status).toBe(202);
      const runId = res.body!.runId as string;
      expect(res.body).toEqual({ ok: true, runId, sessionKey: req.body.sessionKey });
      if (res.headers.get("idempotent-replayed") === "true") replays++;
      const seen = accepted.get(runId);
      if (seen) expect(seen.i).toBe(req.i); // a runId is only ever shared by duplicates of one request
      accepted.set(runId, req);
      if (req.key) {
        const ids = runIdsByKey.get(req.key) ?? new Set<string>();
        ids.add(runId);
        runIdsByKey.set(req.key, ids);
      }
    };
    const send = (req: Req) => postJson(gw!, "agent", req.body, req.key ? { "Idempotency-Key": req.key } : {});
    const turnsOf = (journal: JournalEntry[], i: number) =>
      journal.filter((e) => e.type === "agent_turn" && typeof e.reply === "string" && e.reply.includes(`crash-run-${i}.`)).length;

    await start();
    for (let phase = 0; phase < TOTAL / PER_PHASE; phase++) {
      const reqs = Array.from({ length: PER_PHASE }, (_, k) => requestOf(phase * PER_PHASE + k));
      const turnsBefore = gw!.journal().filter((e) => e.type === "agent_turn").length;

      if (phase === 2) {
        // Kill while requests are in flight: after 25 answers, SIGKILL; the rest fail or were never sent.
        let answered = 0;
        let killing: Promise<void> | undefined;
        const results = await pool(
          reqs.map((req) => async () => {
            const res = await send(req);
            if (++answered === 25) killing = gw!.kill9();
            return res;
          }),
          5,
        );
        await killing;
        lostToKill = [];
        results.forEach((r, k) => {
          if (r.status === "fulfilled" && r.value.status === 202) record(reqs[k]!, r.value);
          else lostToKill.push(reqs[k]!);
        });
        expect(lostToKill.length).toBeGreaterThan(0);
        await start();
        // The sender retries what it did not get an answer for, with the same key and body.
        for (const req of lostToKill) record(req, await send(req));
        continue;
      }

      const results = await pool(
        reqs.flatMap((req) => (req.twice ? [() => send(req), () => send(req)] : [() => send(req)])),
        10,
      );
      const flat = reqs.flatMap((req) => (req.twice ? [req, req] : [req]));
      results.forEach((r, k) => {
        if (r.status === "rejected") throw r.reason;
        record(flat[k]!, r.value);
      });
      // Concurrent duplicates got one run.
      for (const req of reqs.filter((r) => r.twice)) expect(runIdsByKey.get(req.key!)!.size).toBe(1);

      if (phase < 3) {
        // Mid-way: some turns have finished, others are running or queued.
        await until(() => gw!.journal().filter((e) => e.type === "agent_turn").length >= turnsBefore + 6, "some turns of this phase", { timeoutMs: 60_000 });
        await gw!.kill9();
        await start();
      }
    }

    // After three crashes, keys from the first phase still replay their run.
    for (const req of Array.from({ length: PER_PHASE }, (_, i) => requestOf(i)).filter((r) => r.key)) {
      const before = [...runIdsByKey.get(req.key!)!];
      const res = await send(req);
      record(req, res);
      expect(res.headers.get("idempotent-replayed")).toBe("true");
      expect([...runIdsByKey.get(req.key!)!]).toEqual(before);
    }
    expect(replays).toBeGreaterThan(0);

    // Run summaries reach the main session wrapped as untrusted content (SPEC §5.3).
    const summariesIn = (journal: JournalEntry[]) =>
      journal.filter((e) => e.type === "system_event" && e.sessionKey === "main").map((e) => wrappedContent(String(e.text)));
    const summariesOf = (summaries: string[], req: Req) => summaries.filter((t) => t.startsWith(`Hook R${req.i}: `) || t.startsWith(`Hook R${req.i} (`));

    // Every accepted run reaches a terminal state, and then its summary the main session: a run's outcome is
    // recorded (summary pending) before its summary is posted, so a run can read finished a moment before
    // its summary is in the journal.
    const ids = [...accepted.keys()];
    const finalStatus = new Map<string, string>();
    await until(
      async () => {
        for (const id of ids) {
          if (finalStatus.has(id)) continue;
          const res = await getRun(gw!, id);
          expect(res.status).toBe(200); // nothing accepted is missing
          const status = (res.body!.run as { status: string }).status;
          if (status !== "queued" && status !== "running") finalStatus.set(id, status);
        }
        if (finalStatus.size < ids.length) return false;
        const summaries = summariesIn(gw!.journal());
        return [...accepted.values()].every((req) => summariesOf(summaries, req).length > 0);
      },
      "every accepted run to finish and its summary to reach the main session",
      { timeoutMs: 120_000 },
    );

    const journal = gw!.journal();
    const summaries = summariesIn(journal);
    const counts = { succeeded: 0, interrupted: 0 };
    for (const [id, req] of accepted) {
      const status = finalStatus.get(id)!;
      expect(["succeeded", "interrupted"]).toContain(status);
      counts[status as keyof typeof counts]++;
      const mine = summariesOf(summaries, req);
      // Reported exactly once, in the form that matches its status.
      expect(mine).toHaveLength(1);
      if (status === "succeeded") expect(mine[0]!.startsWith(`Hook R${req.i}: echo: `)).toBe(true);
      else expect(mine[0]!.startsWith(`Hook R${req.i} (interrupted): `)).toBe(true);
      // Never run twice (interrupted runs are not re-run: retryInterrupted is false).
      expect(turnsOf(journal, req.i)).toBeLessThanOrEqual(1);
      if (status === "succeeded") expect(turnsOf(journal, req.i)).toBe(1);
    }
    expect(counts.interrupted).toBeGreaterThan(0);
    expect(counts.succeeded).toBeGreaterThan(0);

    // Every request got exactly one run; no key produced two.
    expect(new Set([...accepted.values()].map((r) => r.i)).size).toBe(TOTAL);
    expect(accepted.size).toBe(TOTAL);
    for (const [key, set] of runIdsByKey) {
      expect({ key, runs: set.size }).toEqual({ key, runs: 1 });
      const rows = queryPluginDb<{ n: number }>(
        gw!.stateDir,
        "SELECT COUNT(*) AS n FROM runs WHERE idempotency_key = ?",
        JSON.stringify(["/hooks/agent", key]),
      );
      expect({ key, rows: rows[0]!.n }).toEqual({ key, rows: 1 });
    }
    // Requests whose answer was lost to a kill and that were retried produced one run each.
    for (const req of lostToKill) expect(runIdsByKey.get(req.key!)!.size).toBe(1);

    expect(await gw!.stop("SIGTERM")).toBe(0);
  });
});
