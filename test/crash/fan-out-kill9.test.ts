/**
 * A fan-out killed between storing its runs and answering (SPEC §7, §12), on the
 * real gateway process. Each request fans out to 3 agent runs and then
 * WAKES_PER_BATCH wake events, posted one by one after the runs are stored — the
 * window in which a kill -9 leaves the request's idempotency record `pending` with
 * its `<key>#<index>` runs already stored. Batches are sent with keys and the
 * gateway is killed with SIGKILL the moment the test, polling the database, sees
 * such a record; in rounds until one is still pending after the kill (bounded). After the restart every unanswered request is retried with its
 * key and body. Regression: the pending record of a fan-out was dropped at the next
 * start, so the retry started the whole batch again (6 runs for a 3-run batch).
 * Checked: the retry of an in-window request replays the stored runs
 * (`Idempotent-Replayed`), and no key ever has more than 3 runs.
 * Requires the built dist.
 */
import fs from "node:fs";
import path from "node:path";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../helpers/gateway-process";
import { openSqlite } from "../../src/store/sqlite-driver";
import { CRASH_TOKEN, pluginDatabaseFile, pool, postJson, queryPluginDb, type HttpResult } from "./crash-support";

jest.setTimeout(240_000);

const BATCHES_PER_ROUND = 24;
const WAKES_PER_BATCH = 96;
const MAX_ROUNDS = 6;

const TRANSFORM = `
module.exports = (ctx) =>
  ctx.item === "agent"
    ? { message: "batch " + ctx.payload.batch + " item " + ctx.index, sessionKey: "hook:fan:" + ctx.payload.batch + ":" + ctx.index, deliver: false, wakeMode: "next-heartbeat" }
    : { kind: "wake", text: "batch " + ctx.payload.batch + " wake " + ctx.index, mode: "next-heartbeat" };
`;

const CONFIG = {
  hooks: {
    enabled: true,
    token: CRASH_TOKEN,
    rateLimit: { enabled: false },
    runs: { maxConcurrent: 2, maxQueued: 5000, retryInterrupted: false },
    mappings: [{ id: "fan", match: { path: "fan" }, action: "agent", forEach: "events", transform: { module: "fan.cjs" } }],
  },
  agents: { runner: { kind: "echo", delayMs: 20 }, defaults: { heartbeat: { every: "off" } } },
};

interface Batch {
  key: string;
  body: { batch: string; events: string[] };
}

const batchOf = (round: number, i: number): Batch => ({
  key: `fan-${round}-${i}`,
  body: { batch: `${round}-${i}`, events: ["agent", "agent", "agent", ...Array.from({ length: WAKES_PER_BATCH }, () => "wake")] },
});

describe("crash suite: kill -9 inside a fan-out", () => {
  let dir: string;
  let gw: GatewayProcess | undefined;
  const start = async () => (gw = await startGateway({ dir, config: CONFIG, startTimeoutMs: 60_000 }));

  beforeAll(() => {
    dir = makeGatewayDir("gw-crash-fan-");
    fs.mkdirSync(path.join(dir, "hooks", "transforms"), { recursive: true });
    fs.writeFileSync(path.join(dir, "hooks", "transforms", "fan.cjs"), TRANSFORM);
  });
  afterAll(async () => {
    await gw?.kill9();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const runsOfKey = (scope: string, key: string) => {
    const prefix = `${JSON.stringify([scope, key])}#`;
    return queryPluginDb<{ id: string; idempotency_key: string }>(
      gw!.stateDir,
      "SELECT id, idempotency_key FROM runs WHERE idempotency_key >= ? AND idempotency_key < ? ORDER BY idempotency_key",
      prefix,
      `${prefix.slice(0, -1)}$`,
    );
  };

  it("a retry after the restart replays the runs of a fan-out killed before its answer, and starts none again", async () => {
    const unanswered: Batch[] = [];
    const answered = new Map<string, HttpResult>();
    /** Keys whose record the kill left pending with the batch's runs stored. */
    let inWindow: Array<{ scope: string; key: string }> = [];
    const send = (b: Batch) => postJson(gw!, "fan", b.body, { "Idempotency-Key": b.key });

    for (let round = 0; round < MAX_ROUNDS && inWindow.length === 0; round++) {
      await start();
      const batches = Array.from({ length: BATCHES_PER_ROUND }, (_, i) => batchOf(round, i));
      // Kill the moment the database shows a fan-out's runs stored and its record still pending.
      const db = openSqlite(pluginDatabaseFile(gw!.stateDir), { readonly: true });
      const caught = db.prepare<[], { n: number }>(
        `SELECT COUNT(*) AS n FROM idempotency_keys k WHERE k.state = 'pending'
           AND EXISTS (SELECT 1 FROM runs r WHERE r.idempotency_key >= json_array(k.scope, k.key) || '#' AND r.idempotency_key < json_array(k.scope, k.key) || '$')`,
      );
      let killing: Promise<void> | undefined;
      const watch = (async () => {
        while (!killing) {
          if (caught.get()!.n > 0) killing = gw!.kill9();
          else await new Promise((r) => setImmediate(r));
        }
      })();
      const results = await pool(
        batches.map((b) => async () => {
          if (killing) throw new Error("not sent: the gateway was killed");
          return send(b);
        }),
        4,
      );
      killing ??= gw!.kill9();
      await watch;
      await killing;
      db.close();
      results.forEach((r, k) => {
        if (r.status === "fulfilled") {
          expect(r.value.status).toBe(202);
          answered.set(batches[k]!.key, r.value);
        } else unanswered.push(batches[k]!);
      });
      const pending = queryPluginDb<{ scope: string; key: string }>(gw!.stateDir, "SELECT scope, key FROM idempotency_keys WHERE state = 'pending'");
      inWindow = pending.filter((p) => runsOfKey(p.scope, p.key).length > 0);
    }
    expect(inWindow.length).toBeGreaterThan(0);
    // A fan-out's runs are stored in one transaction: the killed request left all three.
    for (const p of inWindow) expect(runsOfKey(p.scope, p.key)).toHaveLength(3);
    const storedBefore = new Map(inWindow.map((p) => [p.key, runsOfKey(p.scope, p.key).map((r) => r.id)]));
    const scope = inWindow[0]!.scope;

    await start();
    for (const b of unanswered) {
      const res = await send(b);
      expect(res.status).toBe(202);
      const runs = res.body!.runs as Array<{ index: number; runId: string; sessionKey: string }>;
      expect(runs.map((r) => [r.index, r.sessionKey])).toEqual([0, 1, 2].map((i) => [i, `hook:fan:${b.body.batch}:${i}`]));
      const before = storedBefore.get(b.key);
      if (before) {
        expect([b.key, res.headers.get("idempotent-replayed"), runs.map((r) => r.runId)]).toEqual([b.key, "true", before]);
      }
      answered.set(b.key, res);
    }
    // Every key: exactly the 3 runs of its one batch, the ones its answer lists.
    for (const [key, res] of answered) {
      const ids = (res.body!.runs as Array<{ runId: string }>).map((r) => r.runId);
      expect({
        key,
        runs: runsOfKey(scope, key)
          .map((r) => r.id)
          .sort(),
      }).toEqual({ key, runs: [...ids].sort() });
    }
    expect(await gw!.stop("SIGTERM")).toBe(0);
  });
});
