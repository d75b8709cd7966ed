/**
 * Replay over the Postgres store (SPEC §11, §16; docs/ledger.md "Replay", docs/scale.md), with a
 * real gateway process (`--role receiver`: it stores and runs nothing, so every run stays in
 * Postgres to be counted) over a real Postgres, through the real HTTP stack and the CLI:
 *
 * - `POST {path}/deliveries/<id>/replay` takes the accept path again: a new run (idempotency is
 *   bypassed, as over SQLite), the answer with `X-Delivery-Id`, and the replay's own ledger row
 *   (`replayOf`, its run) in Postgres; the CLI's `deliveries replay <id>` does the same.
 * - The refusals are the SQLite path's: one valid replay request, one thing changed each time.
 * - Bulk replay: preview, confirm (each once, oldest first), the same confirm again
 *   (`repeated`, nothing new), and a match gone between preview and confirm (409).
 * - Postgres stopped: a replay and a bulk preview answer 503 `storage_unavailable` with
 *   `Retry-After`; once it is back the same process replays again.
 */
import { describePostgres, startPostgres, type PostgresCluster } from "../../helpers/postgres";
import { runGatewayCli, startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { hooksConfig, HOOK_TOKEN } from "../gateway-setup";

jest.setTimeout(120_000);

const pgConfig = () => hooksConfig({ hooks: { store: { kind: "postgres", url: { env: "PG_URL" }, connectTimeoutMs: 1000 }, rateLimit: { enabled: false } } });

interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers: Headers;
}

async function request(
  base: string,
  path: string,
  opts: { body?: unknown; token?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<Answer> {
  const res = await fetch(`${base}${path}`, {
    method: opts.method ?? "POST",
    headers: { authorization: `Bearer ${opts.token ?? HOOK_TOKEN}`, "content-type": "application/json", ...(opts.headers ?? {}) },
    ...(opts.body !== undefined ? { body: JSON.stringify(opts.body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

describePostgres("replay over the Postgres store", () => {
  let pg: PostgresCluster;
  let gw: GatewayProcess;
  let db: string;
  let env: Record<string, string>;
  const sql = async (q: string): Promise<string> => (await pg.psql(q, db)).trim();
  const deliveries = async (query: string): Promise<Array<Record<string, unknown>>> =>
    (await request(gw.baseUrl, `/hooks/deliveries?${query}`, { method: "GET" })).body.deliveries as Array<Record<string, unknown>>;
  /** The ledger row of a request, once the ledger writer wrote it. */
  const rowOf = async (where: (d: Record<string, unknown>) => boolean, what: string): Promise<Record<string, unknown>> => {
    let found: Record<string, unknown> | undefined;
    await until(async () => (found = (await deliveries("limit=100")).find(where)) !== undefined, what, { timeoutMs: 10_000 });
    return found!;
  };

  beforeAll(async () => {
    pg = await startPostgres();
    const url = await pg.createDatabase();
    db = new URL(url).pathname.slice(1);
    env = { PG_URL: url };
    gw = await startGateway({ config: pgConfig(), env, args: ["--role", "receiver"], startTimeoutMs: 60_000 });
  }, 120_000);
  afterAll(async () => {
    await gw?.stop();
    await pg?.cleanup();
  });

  it("a replay makes a new run through the accept path, with its own ledger row; the CLI's replay the same", async () => {
    const sent = await request(gw.baseUrl, "/hooks/agent", {
      body: { message: "replay me", sessionKey: "hook:replay-1" },
      headers: { "idempotency-key": "replay-key-1" },
    });
    expect(sent.status).toBe(202);
    const original = await rowOf((d) => d.runIds instanceof Array && (d.runIds as string[]).includes(sent.body.runId as string), "the original's row");

    const replayed = await request(gw.baseUrl, `/hooks/deliveries/${original.id as string}/replay`);
    expect(replayed.status).toBe(202);
    const newRun = replayed.body.runId as string;
    expect(newRun).toEqual(expect.any(String));
    expect(newRun).not.toBe(sent.body.runId);
    const replayId = replayed.headers.get("x-delivery-id")!;
    expect(replayId).toMatch(/^[0-9a-f-]{36}$/);
    // Idempotency is bypassed (the point of a replay is to run again), and the run is in Postgres, queued.
    expect(await sql(`SELECT status FROM inbound_webhooks.runs WHERE id = '${newRun}'`)).toBe("queued");
    expect(await sql("SELECT count(*) FROM inbound_webhooks.runs")).toBe("2");
    const row = await rowOf((d) => d.id === replayId, "the replay's row");
    expect(row).toMatchObject({ replayOf: original.id, runIds: [newRun], status: 202, hook: "agent" });

    const cli = await runGatewayCli(["webhooks", "deliveries", "replay", original.id as string, "--config", gw.configPath], { env });
    expect(cli.stderr).toBe("");
    expect(cli.code).toBe(0);
    const cliId = /^Replayed \S+ as delivery ([0-9a-f-]{36}): 202$/m.exec(cli.stdout)?.[1];
    expect(cliId).toEqual(expect.any(String));
    const cliRow = await rowOf((d) => d.id === cliId, "the CLI replay's row");
    expect(cliRow).toMatchObject({ replayOf: original.id, status: 202 });
    expect(await sql("SELECT count(*) FROM inbound_webhooks.runs")).toBe("3");
  });

  describe("refusals: one valid replay request, one thing changed", () => {
    let valid: string;
    beforeAll(async () => {
      const sent = await request(gw.baseUrl, "/hooks/wake", { body: { text: "valid" } });
      expect(sent.status).toBe(200);
      valid = (await rowOf((d) => d.hook === "wake" && d.status === 200 && d.replayOf === undefined, "the wake's row")).id as string;
    });
    const replay = (id: string, token?: string) => request(gw.baseUrl, `/hooks/deliveries/${id}/replay`, { ...(token ? { token } : {}) });

    it("the valid one is replayed (200, X-Delivery-Id)", async () => {
      const r = await replay(valid);
      expect(r.status).toBe(200);
      expect(r.headers.get("x-delivery-id")).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("an unknown delivery id: 404 delivery_not_found", async () => {
      const r = await replay("00000000-0000-4000-8000-000000000000");
      expect([r.status, r.body.code]).toEqual([404, "delivery_not_found"]);
    });

    it("a delivery refused before it authenticated (401): 409 delivery_not_replayable", async () => {
      const bad = await request(gw.baseUrl, "/hooks/wake", { body: { text: "no" }, token: "wrong-token-0123456789abcdef" });
      expect(bad.status).toBe(401);
      const refused = await rowOf((d) => d.status === 401, "the 401's row");
      const r = await replay(refused.id as string);
      expect([r.status, r.body.code]).toEqual([409, "delivery_not_replayable"]);
    });

    it("a delivery whose body was not stored (hooks.ledger.storeBodies false when it came): 409 delivery_body_not_stored", async () => {
      const sent = await request(gw.baseUrl, "/hooks/wake", { body: { text: "bodiless" } });
      expect(sent.status).toBe(200);
      const row = await rowOf((d) => d.hook === "wake" && d.id !== valid && d.status === 200 && d.replayOf === undefined, "the second wake's row");
      await sql(`UPDATE inbound_webhooks.deliveries SET body = NULL, body_stored = false WHERE id = '${row.id as string}'`);
      const r = await replay(row.id as string);
      expect([r.status, r.body.code]).toEqual([409, "delivery_body_not_stored"]);
    });

    it("without the hook token: 401", async () => {
      const r = await replay(valid, "wrong-token-0123456789abcdef");
      expect(r.status).toBe(401);
    });
  });

  it("bulk replay: the preview counts, the confirm replays each once oldest first, again it repeats; a match gone meanwhile is 409", async () => {
    const since = new Date().toISOString();
    const texts = ["bulk-1", "bulk-2", "bulk-3"];
    for (const text of texts) expect((await request(gw.baseUrl, "/hooks/wake", { body: { text } })).status).toBe(200);
    await until(async () => (await deliveries(`hook=wake&since=${since}`)).length === 3, "the three wakes listed", { timeoutMs: 10_000 });
    const filter = `hook=wake&since=${encodeURIComponent(since)}`;
    const originals = (await deliveries(`hook=wake&since=${encodeURIComponent(since)}`)).map((d) => d.id as string).reverse();

    const preview = await request(gw.baseUrl, `/hooks/deliveries/replay?${filter}`);
    expect(preview.status).toBe(200);
    const p = preview.body.preview as { count: number; ids: string[]; confirm: string; notReplayable: number };
    expect(p).toMatchObject({ count: 3, ids: originals, notReplayable: 0 });

    const confirmed = await request(gw.baseUrl, `/hooks/deliveries/replay?${filter}&confirm=${p.confirm}`);
    expect(confirmed.status).toBe(200);
    const result = confirmed.body.replay as {
      count: number;
      failed: number;
      repeated: boolean;
      replayed: Array<{ replayOf: string; deliveryId: string; status: number }>;
    };
    expect(result).toMatchObject({ count: 3, failed: 0, repeated: false });
    expect(result.replayed.map((r) => [r.replayOf, r.status])).toEqual(originals.map((id) => [id, 200]));
    for (const r of result.replayed) await rowOf((d) => d.id === r.deliveryId && d.replayOf === r.replayOf, "each replay's row");

    const again = await request(gw.baseUrl, `/hooks/deliveries/replay?${filter}&confirm=${p.confirm}`);
    expect(again.status).toBe(200);
    expect(again.body.replay).toMatchObject({ count: 3, repeated: true, replayed: result.replayed });
    expect(await sql(`SELECT count(*) FROM inbound_webhooks.deliveries WHERE replay_of IN ('${originals.join("','")}')`)).toBe("3");

    // A new preview counts the originals again (replays are never matched); one pruned before its confirm: 409, nothing replayed.
    const second = (await request(gw.baseUrl, `/hooks/deliveries/replay?${filter}`)).body.preview as { count: number; confirm: string };
    expect(second.count).toBe(3);
    await sql(`DELETE FROM inbound_webhooks.deliveries WHERE id = '${originals[0]!}'`);
    const changed = await request(gw.baseUrl, `/hooks/deliveries/replay?${filter}&confirm=${second.confirm}`);
    expect([changed.status, changed.body.code]).toEqual([409, "bulk_replay_changed"]);
    expect(await sql(`SELECT count(*) FROM inbound_webhooks.deliveries WHERE replay_of IN ('${originals.join("','")}')`)).toBe("3");
  });

  it("Postgres stopped: a replay and a bulk preview answer 503 storage_unavailable with Retry-After; back, the same process replays", async () => {
    const known = new Set((await deliveries("limit=100")).map((d) => d.id));
    expect((await request(gw.baseUrl, "/hooks/wake", { body: { text: "before the stop" } })).status).toBe(200);
    const row = await rowOf((d) => !known.has(d.id), "the wake's row");
    await pg.stop("fast");
    try {
      const r = await request(gw.baseUrl, `/hooks/deliveries/${row.id as string}/replay`);
      expect([r.status, r.body.code]).toEqual([503, "storage_unavailable"]);
      expect(r.headers.get("retry-after")).toBe("30");
      const b = await request(gw.baseUrl, "/hooks/deliveries/replay?hook=wake");
      expect([b.status, b.body.code]).toEqual([503, "storage_unavailable"]);
      expect(b.headers.get("retry-after")).toBe("30");
    } finally {
      await pg.start();
    }
    let after: Answer | undefined;
    await until(async () => (after = await request(gw.baseUrl, `/hooks/deliveries/${row.id as string}/replay`)).status === 200, "a replay after the restart", {
      timeoutMs: 20_000,
    });
    expect(after!.headers.get("x-delivery-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});
