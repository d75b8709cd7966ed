/**
 * The two roles over a real Postgres (SPEC §16, docs/scale.md), as real processes: a
 * receiver (`gateway start --role receiver`) stores and answers and runs no agent turn; a
 * consumer (the gateway in its normal role) claims the runs and runs them. A keyed retry
 * sent to the consumer's endpoint after the receiver took the request replays its answer.
 * The receiver with the SQLite store refuses to start, saying why.
 */
import { describePostgres, startPostgres, type PostgresCluster } from "../../helpers/postgres";
import { startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { until } from "../../helpers/until";
import { hooksConfig, HOOK_TOKEN } from "../gateway-setup";

jest.setTimeout(90_000);

const pgConfig = (url: string) => hooksConfig({ hooks: { store: { kind: "postgres", url: { env: "PG_URL" }, leaseSeconds: 5 } } });

async function post(
  base: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${base}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers };
}

const sql = async (pg: PostgresCluster, db: string, q: string): Promise<string> => (await pg.psql(q, db)).trim();

describePostgres("a receiver and a consumer over one Postgres", () => {
  let pg: PostgresCluster;
  const gateways: GatewayProcess[] = [];
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterEach(async () => {
    await Promise.all(gateways.splice(0).map((g) => g.stop()));
  });
  afterAll(async () => {
    await pg?.cleanup();
  });

  it("the receiver stores and answers, the consumer runs; a keyed retry on the other process replays; the password never logged", async () => {
    const url = (await pg.createDatabase()).replace("app@", "app:pw-never-logged-42@");
    const env = { PG_URL: url };
    const receiver = await startGateway({ config: pgConfig(url), env, args: ["--role", "receiver"] });
    gateways.push(receiver);
    expect(receiver.stdout()).toContain("role: receiver");
    const first = await post(receiver.baseUrl, "/hooks/agent", { message: "hello", sessionKey: "hook:pg-1" }, { "idempotency-key": "evt-1" });
    expect(first.status).toBe(202);
    const runId = first.body.runId as string;
    // The receiver runs nothing: the run waits, queued, in Postgres.
    await new Promise((r) => setTimeout(r, 500));
    expect(await sql(pg, new URL(url).pathname.slice(1), `SELECT status FROM inbound_webhooks.runs WHERE id = '${runId}'`)).toBe("queued");
    const status = await fetch(`${receiver.baseUrl}/hooks/runs/${runId}`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
    expect(((await status.json()) as { run: { status: string } }).run.status).toBe("queued");

    const consumer = await startGateway({ config: pgConfig(url), env });
    gateways.push(consumer);
    const db = new URL(url).pathname.slice(1);
    await until(async () => (await sql(pg, db, `SELECT status FROM inbound_webhooks.runs WHERE id = '${runId}'`)) === "succeeded", "the consumer ran the run", {
      timeoutMs: 20_000,
    });
    const again = await post(consumer.baseUrl, "/hooks/agent", { message: "hello", sessionKey: "hook:pg-1" }, { "idempotency-key": "evt-1" });
    expect(again.status).toBe(202);
    expect(again.body.runId).toBe(runId);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await sql(pg, db, "SELECT count(*) FROM inbound_webhooks.runs")).toBe("1");
    // The ledger over Postgres: the receiver's row is listed by the consumer.
    await until(
      async () => {
        const res = await fetch(`${consumer.baseUrl}/hooks/deliveries?limit=10`, { headers: { authorization: `Bearer ${HOOK_TOKEN}` } });
        return ((await res.json()) as { deliveries: unknown[] }).deliveries.length >= 2;
      },
      "both deliveries in the ledger",
      { timeoutMs: 10_000 },
    );
    for (const g of [receiver, consumer]) expect(g.stdout() + g.stderr()).not.toContain("pw-never-logged-42");
  });

  it("a receiver with the SQLite store refuses to start, naming hooks.store.kind", async () => {
    await expect(startGateway({ config: hooksConfig(), args: ["--role", "receiver"] })).rejects.toThrow(
      /hooks\.store\.kind must be "postgres" when the gateway runs as a receiver/,
    );
  });
});
