/**
 * Fuzz suite (SPEC §4.2, §7, §9): ≥ 10,000 generated requests (fast-check) against
 * the plugin activated on the fake host and mounted like a host mounts it, sent
 * over one keep-alive loopback connection. Properties:
 *   - the process never crashes and keeps answering;
 *   - never a 5xx except transform_failed / overloaded;
 *   - every 4xx has a catalogued code and a message, and no stack/token/path leaks;
 *   - no request answered 4xx (or 204) caused any effect: no system event or run
 *     carries its request id — and a stream of only rejected requests leaves the
 *     host with nothing recorded at all;
 *   - every 202 run (each run of a fan-out too) is persisted under the hook namespace;
 *   - the §12 answers (Meta's text challenge, Slack's challenge, a mapping's own
 *     response, a waited run, a fan-out) appear only where they belong.
 * FUZZ_RUNS scales the number of requests (default 10,000); FUZZ_SEED replays a run.
 */
import fs from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { openSqlite, type SqliteDatabase } from "../../src/store/sqlite-driver";
import { startPluginApp, type PluginApp } from "../helpers/plugin-app";
import { FUZZ_MAX_BODY_BYTES, FUZZ_TOKEN, fuzzRequest, rejectedRequest } from "./arbitraries";
import { FUZZ_MAX_FAN_OUT, FUZZ_MAX_WAIT_SECONDS, FUZZ_META_TOKEN, FUZZ_SLACK_SECRET } from "./response-arbitraries";
import { startFuzzServer, type FuzzClient } from "./fuzz-client";
import { checkResponse } from "./invariants";
import { tempDir } from "../helpers/temp-dir";

jest.setTimeout(600_000);

const TOTAL = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
const MIXED_RUNS = Math.ceil(TOTAL * 0.8);
const REJECTED_RUNS = TOTAL - MIXED_RUNS;

const TRANSFORM = `
module.exports = (ctx) => {
  const p = ctx.payload;
  if (p.skip === true) return null;
  if (p.boom === true) throw new Error("boom from the fuzz transform");
  if (typeof p.text === "string") return { kind: "wake", text: p.text, mode: "next-heartbeat" };
  return { message: typeof p.msg === "string" ? p.msg : JSON.stringify(p).slice(0, 200) };
};
`;

async function startFuzzPlugin(dir: string): Promise<PluginApp> {
  fs.mkdirSync(path.join(dir, "hooks", "transforms"), { recursive: true });
  fs.writeFileSync(path.join(dir, "hooks", "transforms", "fuzz.cjs"), TRANSFORM);
  return startPluginApp({
    stateDir: dir,
    models: [{ ref: "openai/gpt-5", alias: "fast" }],
    runTurn: async (req) => ({ status: "ok", reply: `echo ${req.message.length}` }),
    hooks: {
      token: FUZZ_TOKEN,
      maxBodyBytes: FUZZ_MAX_BODY_BYTES,
      maxFanOut: FUZZ_MAX_FAN_OUT,
      rateLimit: { enabled: false },
      runs: { maxConcurrent: 2, maxQueued: 200, shutdownGraceSeconds: 1, maxWaitSeconds: FUZZ_MAX_WAIT_SECONDS },
      presets: ["mail"],
      mappings: [
        { id: "crm", match: { path: "crm" }, action: "agent", name: "CRM", messageTemplate: "Deal {{ payload.deal }} {{ headers.x-foo }}" },
        { id: "xf", match: { path: "xf" }, action: "agent", transform: { module: "fuzz.cjs" } },
        {
          id: "fwd",
          match: { path: "fwd" },
          action: "agent",
          messageTemplate: "mail {{ payload.id }}",
          response: { status: 200, body: { received: "{{ payload.id }}" } },
        },
        {
          id: "batch",
          match: { path: "batch" },
          action: "agent",
          forEach: "events",
          messageTemplate: "event {{ index }}: {{ item.text }}",
          sessionKey: "hook:batch:{{ item.id }}",
        },
        { id: "wbatch", match: { path: "wbatch" }, action: "wake", forEach: "events", textTemplate: "event {{ index }}: {{ item }}" },
        {
          id: "slack",
          match: { path: "slack" },
          action: "agent",
          handshake: "slack",
          verify: { scheme: "slack", secret: FUZZ_SLACK_SECRET },
          messageTemplate: "slack {{ payload.event.text }}",
        },
        {
          id: "meta",
          match: { path: "whatsapp" },
          action: "agent",
          handshake: { meta: { verifyToken: FUZZ_META_TOKEN } },
          messageTemplate: "wa {{ payload.entry }}",
        },
        { id: "form", match: { path: "form" }, action: "agent", messageTemplate: "form {{ payload.subject }} {{ payload.tag }} {{ payload.text }}" },
        { id: "monitor", match: { source: "monitor" }, action: "wake", textTemplate: "Alert {{ payload.alert }}" },
      ],
    },
  });
}

/** Which §12 answers a response is (for the reach check): the invariants already checked its shape. */
function answerKinds(res: { status: number; headers: Record<string, unknown>; text: string }): string[] {
  const kinds: string[] = [];
  if (res.status === 200 && String(res.headers["content-type"]).startsWith("text/plain")) kinds.push("meta challenge");
  if (res.status === 200 && res.text.startsWith('{"challenge":')) kinds.push("slack challenge");
  if (res.headers["preference-applied"] !== undefined) kinds.push(`waited ${res.status}`);
  if (res.status === 202 && res.text.includes('"runs":[')) kinds.push("fan-out");
  return kinds;
}

describe("HTTP fuzz", () => {
  let tmp: ReturnType<typeof tempDir>;
  let plugin: PluginApp;
  let client: FuzzClient;
  let db: SqliteDatabase;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => void unhandled.push(reason);

  beforeAll(() => process.on("unhandledRejection", onUnhandled));
  afterAll(() => process.off("unhandledRejection", onUnhandled));
  beforeEach(async () => {
    tmp = tempDir("iw-fuzz-");
    plugin = await startFuzzPlugin(tmp.dir);
    client = await startFuzzServer(plugin.app);
    db = openSqlite(path.join(tmp.dir, "inbound-webhooks.sqlite"), { readonly: true });
  });
  afterEach(async () => {
    db.close();
    await client.close();
    await plugin.close();
    tmp.remove();
  });

  const secrets = () => [FUZZ_TOKEN, tmp.dir, "boom from the fuzz transform"];
  const runsOf = () => db.prepare<[string], { n: number }>("SELECT COUNT(*) AS n FROM runs WHERE json_extract(source, '$.requestId') = ?");
  const runById = () => db.prepare<[string], { status: string; action: string }>("SELECT status, action FROM runs WHERE id = ?");

  async function stillAlive(): Promise<void> {
    const res = await client.send({
      method: "POST",
      path: "/hooks/wake",
      headers: { authorization: `Bearer ${FUZZ_TOKEN}`, "content-type": "application/json" },
      body: Buffer.from('{"text":"still alive","mode":"next-heartbeat"}'),
      contentLength: true,
    });
    expect(res?.status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(unhandled).toEqual([]);
  }

  it(`${MIXED_RUNS} mixed requests: valid statuses and bodies, no effect from any rejected request`, async () => {
    const countRuns = runsOf();
    const findRun = runById();
    const seen: Record<number, number> = {};
    const reached = new Set<string>();
    await fc.assert(
      fc.asyncProperty(fuzzRequest, async (req) => {
        const res = await client.send(req);
        if (res === undefined) {
          // Only an early rejection of an over-limit body may close the connection before the answer arrives.
          expect(req.body.length).toBeGreaterThan(FUZZ_MAX_BODY_BYTES);
          return;
        }
        seen[res.status] = (seen[res.status] ?? 0) + 1;
        const requestId = checkResponse(req, res, secrets());
        if (requestId === undefined) return;
        for (const kind of answerKinds(res)) reached.add(kind);
        if (res.status >= 400 || res.status === 204) {
          expect(plugin.host.systemEvents.filter((e) => e.meta?.requestId === requestId)).toEqual([]);
          expect(countRuns.get(requestId)!.n).toBe(0);
        }
        // A repeat (Idempotent-Replayed) answers with the first request's runs, checked when that one was answered: by now a
        // finished run may have been pruned (hooks.runs.maxFinished, 1000 by default, is below this test's accepted runs).
        if (res.status === 202 && req.method !== "HEAD" && res.headers["idempotent-replayed"] === undefined) {
          const body = JSON.parse(res.text) as { runId: string; sessionKey: string; runs?: Array<{ runId: string; sessionKey: string }> };
          for (const run of body.runs ?? [body]) {
            const row = findRun.get(run.runId);
            expect(row).toBeDefined(); // accepted means persisted
            expect((JSON.parse(row!.action) as { sessionKey: string }).sessionKey).toBe(run.sessionKey);
          }
        }
      }),
      { numRuns: MIXED_RUNS, seed: SEED, endOnFailure: false },
    );
    if (process.env.FUZZ_DEBUG) console.log(JSON.stringify(seen));
    // The generators reach the interesting outcomes (guards against a generator that only produces 401s).
    for (const status of [200, 202, 400, 401, 403, 404, 405, 413, 415]) expect({ status, seen: (seen[status] ?? 0) > 0 }).toEqual({ status, seen: true });
    expect([...reached].sort()).toEqual(["fan-out", "meta challenge", "slack challenge", "waited 200"]);
    await stillAlive();
  });

  it(`${REJECTED_RUNS} requests without a valid credential: the host records nothing at all`, async () => {
    await fc.assert(
      fc.asyncProperty(rejectedRequest, async (req) => {
        const res = await client.send(req);
        if (res === undefined) return;
        checkResponse(req, res, secrets());
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
      }),
      { numRuns: REJECTED_RUNS, seed: SEED },
    );
    expect(plugin.host.systemEvents).toEqual([]);
    expect(plugin.host.heartbeats).toEqual([]);
    expect(plugin.host.turns).toEqual([]);
    expect(plugin.host.deliveries).toEqual([]);
    expect(db.prepare("SELECT COUNT(*) AS n FROM runs").get()).toEqual({ n: 0 });
    expect(db.prepare("SELECT COUNT(*) AS n FROM idempotency_keys").get()).toEqual({ n: 0 });
    await stillAlive();
  });
});
