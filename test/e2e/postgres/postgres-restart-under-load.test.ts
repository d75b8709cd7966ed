/**
 * Postgres stopped and started under load (SPEC §16, docs/scale.md "What holds"), with
 * real processes: a receiver (`gateway start --role receiver`) and a consumer gateway
 * over one real Postgres, keyed `/hooks/agent` deliveries sent continuously by a few
 * senders. Postgres is stopped twice — `pg_ctl stop -m fast`, then `-m immediate` (like
 * a crash) — for a few seconds each and started again on the same port.
 *
 * Meanwhile the receiver answers 503 `storage_unavailable` with `Retry-After`, never a
 * 2xx and never a 500; afterwards it answers 2xx again, the same process. Then every
 * delivery answered 2xx has exactly one run, every key (its 503s retried under the same
 * key) made one run, nothing is half-written (a run without its ledger row, a ledger row
 * naming a run that does not exist, an idempotency record without its run), and every
 * run — those accepted after the outages too — ends succeeded on the consumer, which was
 * not restarted either.
 */
import { describePostgres, startPostgres, type PostgresCluster } from "../../helpers/postgres";
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { hooksConfig, HOOK_TOKEN } from "../gateway-setup";

jest.setTimeout(120_000);

const SENDERS = 4;
/** How long Postgres stays down each time. */
const DOWN_MS = 3000;

const pgConfig = () =>
  hooksConfig({
    hooks: {
      store: { kind: "postgres", url: { env: "PG_URL" }, leaseSeconds: 5, connectTimeoutMs: 1000 },
      rateLimit: { enabled: false },
      runs: { maxConcurrent: 8, maxQueued: 100000 },
    },
  });

interface Answer {
  status: number;
  code?: string;
  runId?: string;
  retryAfter: string | null;
  replayed: boolean;
  /** Which outage phase the request was sent in. */
  phase: string;
  ms?: number;
}

async function deliver(base: string, i: number, key: string, phase: string): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${base}/hooks/agent`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ message: `delivery ${i}`, sessionKey: `hook:s${i % 6}` }),
    });
    const body = (await res.json().catch(() => ({}))) as { runId?: string; error?: { code?: string } | string; code?: string };
    const code = typeof body.error === "object" ? body.error?.code : body.code;
    return {
      status: res.status,
      ...(code ? { code } : {}),
      ...(body.runId ? { runId: body.runId } : {}),
      retryAfter: res.headers.get("retry-after"),
      replayed: res.headers.get("idempotent-replayed") === "true",
      phase,
      ms: Date.now() - sentAt,
    };
  } catch {
    return { status: 0, retryAfter: null, replayed: false, phase };
  }
}

const is2xx = (a: Answer) => a.status >= 200 && a.status < 300;

describePostgres("Postgres stopped and started under load, behind a receiver and a consumer", () => {
  let pg: PostgresCluster;
  const gateways: GatewayProcess[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.stop()));
    await pg?.cleanup();
  });

  it("503 storage_unavailable with Retry-After while it is down, 2xx again after, no restart; every 2xx one run, nothing half-written, every run succeeded", async () => {
    const url = await pg.createDatabase();
    const db = new URL(url).pathname.slice(1);
    const env = { PG_URL: url };
    const receiver = await startGateway({ config: pgConfig(), env, args: ["--role", "receiver"], startTimeoutMs: 60_000 });
    gateways.push(receiver);
    const consumer = await startGateway({ config: pgConfig(), env, startTimeoutMs: 60_000 });
    gateways.push(consumer);
    const pids = [receiver.child.pid, consumer.child.pid];
    const detail = () =>
      `receiver:\n${receiver.stdout().slice(-3000)}\n${receiver.stderr().slice(-2000)}\nconsumer:\n${consumer.stdout().slice(-3000)}\n${consumer.stderr().slice(-2000)}`;

    const answers = new Map<string, Answer[]>();
    let phase = "before";
    let next = 0;
    let sending = true;
    let failed = false;
    const sender = async (): Promise<void> => {
      while (sending) {
        const i = next++;
        const key = `evt-${i}`;
        const list: Answer[] = [];
        answers.set(key, list);
        // A sender retries under the same key until it has a 2xx (sooner than Retry-After asks: the test has no 30 s to spare).
        for (let attempt = 0; attempt < 400 && !failed; attempt++) {
          const r = await deliver(receiver.baseUrl, i, key, phase);
          list.push(r);
          if (is2xx(r)) break;
          await new Promise((res) => setTimeout(res, 50));
        }
      }
    };
    const okCount = () => [...answers.values()].flat().filter(is2xx).length;
    const countIn = (p: string, pred: (a: Answer) => boolean) => [...answers.values()].flat().filter((a) => a.phase === p && pred(a)).length;
    const senders = Array.from({ length: SENDERS }, sender);
    // The senders stop whatever happens below (a failed wait must not leave them sending for ever).
    try {
      await outages();
    } catch (e) {
      failed = true;
      throw e;
    } finally {
      sending = false;
      await Promise.all(senders);
    }

    async function outages(): Promise<void> {
      await until(() => okCount() >= 40, "deliveries flowing", { timeoutMs: 30_000, detail });
      for (const mode of ["fast", "immediate"] as const) {
        // The phase a request was sent in: stopping (Postgres may still commit), down (stopped: nothing can commit), starting.
        phase = `stopping-${mode}`;
        await pg.stop(mode);
        phase = `down-${mode}`;
        await until(() => countIn(phase, (a) => a.status === 503) >= SENDERS, `503s while Postgres is down (${mode})`, { timeoutMs: 20_000, detail });
        await new Promise((r) => setTimeout(r, DOWN_MS));
        phase = `starting-${mode}`;
        await pg.start();
        phase = `after-${mode}`;
        // Recovered without a restart: 2xx again from the same receiver.
        await until(() => countIn(phase, is2xx) >= 30, `2xx again after the ${mode} stop`, { timeoutMs: 60_000, detail });
      }
    }

    const all = [...answers.values()].flat();
    // While Postgres was down: 503 storage_unavailable with Retry-After, nothing else; never a 500, never a cut-off connection.
    const odd = all.filter((a) => !is2xx(a) && !(a.status === 503 && a.code === "storage_unavailable" && a.retryAfter !== null && Number(a.retryAfter) > 0));
    expect(odd).toEqual([]);
    for (const mode of ["fast", "immediate"]) expect({ mode, refused: countIn(`down-${mode}`, (a) => a.status === 503) > 0 }).toEqual({ mode, refused: true });
    // Every key ended with a 2xx, and all the 2xx answers of one key name one run.
    for (const [key, list] of answers) {
      const runIds = new Set(list.filter(is2xx).map((a) => a.runId));
      expect({ key, runIds: runIds.size, runId: typeof [...runIds][0] }).toEqual({ key, runIds: 1, runId: "string" });
    }
    const runOf = new Map([...answers].map(([key, list]) => [key, list.find(is2xx)!.runId!]));
    const retried = [...answers.values()].filter((l) => l.some((a) => a.status === 503)).length;
    expect(retried).toBeGreaterThan(0);

    const sql = async (q: string) => (await pg.psql(q, db)).trim();
    const stored = new Map(
      // A run's idempotency_key is its scope and key as JSON (runIdempotencyKey): `["<scope>","evt-1"]`.
      (await sql("SELECT (idempotency_key::json ->> 1) || ' ' || id FROM inbound_webhooks.runs"))
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split(" ") as [string, string]),
    );
    // Exactly one run per key (the keyed retries of 503s made no second), and it is the one the 2xx named.
    expect(await sql("SELECT count(*) FROM inbound_webhooks.runs")).toBe(String(answers.size));
    expect(stored.size).toBe(answers.size);
    for (const [key, runId] of runOf) expect({ key, runId: stored.get(key) }).toEqual({ key, runId });
    // Sent while Postgres was down (stopped, not yet starting): 503 every one, none answered 2xx.
    const downOk = [...answers].flatMap(([key, list]) => list.filter((a) => a.phase.startsWith("down-") && is2xx(a)).map((a) => ({ key, ...a })));
    expect(downOk).toEqual([]);
    // Nothing half-written: a run without its ledger row, a ledger row naming a missing run, a key's record without its run.
    // A ledger row is written a turn after its answer (again after an outage: pg-ledger-writer.ts), so the last ones may still be on their way.
    const withoutDelivery = "SELECT count(*) FROM inbound_webhooks.runs r WHERE NOT EXISTS (SELECT 1 FROM inbound_webhooks.deliveries d WHERE d.run_id = r.id)";
    await until(async () => (await sql(withoutDelivery)) === "0", "every run's ledger row", { timeoutMs: 15_000, detail }).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await sql(withoutDelivery)} runs without their ledger row`);
    });
    expect(
      await sql(
        "SELECT count(*) FROM inbound_webhooks.deliveries d WHERE d.run_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM inbound_webhooks.runs r WHERE r.id = d.run_id)",
      ),
    ).toBe("0");
    expect(
      await sql(
        "SELECT count(*) FROM inbound_webhooks.idempotency_keys k WHERE k.status BETWEEN 200 AND 299 AND NOT EXISTS (SELECT 1 FROM inbound_webhooks.runs r WHERE r.idempotency_key::json ->> 0 = k.scope AND r.idempotency_key::json ->> 1 = k.key)",
      ),
    ).toBe("0");

    // The consumer, not restarted either, ran them all — those accepted after the outages too.
    await until(
      async () => (await sql("SELECT count(*) FROM inbound_webhooks.runs WHERE status = 'succeeded'")) === String(answers.size),
      "every run succeeded",
      { timeoutMs: 60_000, detail },
    ).catch(async (e: Error) => {
      // The statuses first: CI shows the head of a long message.
      const statuses = (await sql("SELECT status || ' ' || count(*) FROM inbound_webhooks.runs GROUP BY status")).split("\n").join(", ");
      throw new Error(`runs by status: ${statuses}\n${e.message}`);
    });
    // Per-session order kept through the outages: each session's runs started in seq order (claims are serialized; a start is the database's clock at its claim, a finish the consumer's, so it is no finish-to-start check).
    expect(
      await sql(
        `SELECT count(*) FROM (SELECT started_at, lag(started_at) OVER (PARTITION BY session_key ORDER BY seq) AS prev_started FROM inbound_webhooks.runs) o
         WHERE started_at < prev_started`,
      ),
    ).toBe("0");
    expect([receiver.child.pid, consumer.child.pid]).toEqual(pids);
    expect([receiver.child.exitCode, consumer.child.exitCode]).toEqual([null, null]);

    const by = (p: string) => `${countIn(p, is2xx)} 2xx/${countIn(p, (a) => a.status === 503)} 503`;
    process.stdout.write(
      `postgres-restart-under-load: ${answers.size} keyed deliveries (${retried} retried after a 503); before ${by("before")}, ` +
        `stopping ${by("stopping-fast")}, fast stop ${by("down-fast")}, starting ${by("starting-fast")}, after ${by("after-fast")}, stopping ${by("stopping-immediate")}, immediate stop ${by("down-immediate")}, starting ${by("starting-immediate")}, after ${by("after-immediate")}; all succeeded\n`,
    );
  });
});
