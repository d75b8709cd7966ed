/**
 * Two receivers (`gateway start --role receiver`) behind a real haproxy and one consumer
 * gateway, over one real Postgres (SPEC §16, docs/scale.md), all real processes:
 * 5,000 deliveries through the balancer (issue 34's count), a fifth of them retried under the same key (haproxy
 * round-robins, so the retry reaches the other receiver), one receiver kill -9'd mid-stream.
 * Every delivery answered 2xx has exactly one run, and it ends succeeded on the consumer;
 * keyed retries dedupe across receivers (the same run id, Idempotent-Replayed); the runs of
 * one session key start in acceptance order (`seq`).
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describePostgres, startPostgres, type PostgresCluster } from "../../helpers/postgres";
import { makeGatewayDir, startGateway, type GatewayProcess } from "../../helpers/gateway-process";
import { freePort } from "../../helpers/free-port";
import { until } from "../../helpers/until";
import { hooksConfig, HOOK_TOKEN } from "../gateway-setup";

jest.setTimeout(420_000);

const DELIVERIES = 5000;
const IN_FLIGHT = 16;
const RETRIED_SHARE = 5;

const pgConfig = () =>
  hooksConfig({
    hooks: {
      store: { kind: "postgres", url: { env: "PG_URL" }, leaseSeconds: 5 },
      rateLimit: { enabled: false },
      // Every run of the test kept (the default keeps 1,000 finished runs, fewer than the test counts).
      runs: { maxConcurrent: 16, maxQueued: 100000, maxFinished: 100000 },
    },
  });

async function startHaproxy(backends: number[]): Promise<{ port: number; child: ChildProcess; stop(): Promise<void> }> {
  const dir = makeGatewayDir("haproxy-");
  const port = await freePort();
  const cfg = [
    "global",
    "  maxconn 1000",
    "defaults",
    "  mode http",
    "  timeout connect 2s",
    "  timeout client 30s",
    "  timeout server 30s",
    "  retries 2",
    "  option redispatch",
    `frontend hooks`,
    `  bind 127.0.0.1:${port}`,
    "  default_backend receivers",
    "backend receivers",
    "  balance roundrobin",
    "  option httpchk GET /healthz",
    ...backends.map((p, i) => `  server r${i} 127.0.0.1:${p} check inter 500 fall 1 rise 1`),
  ].join("\n");
  const file = path.join(dir, "haproxy.cfg");
  fs.writeFileSync(file, `${cfg}\n`);
  const child = spawn("haproxy", ["-db", "-f", file], { stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
  await until(
    async () => {
      try {
        await fetch(`http://127.0.0.1:${port}/healthz`);
        return true;
      } catch {
        return false;
      }
    },
    "haproxy listening",
    { timeoutMs: 10_000, detail: () => err },
  );
  return {
    port,
    child,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

interface Answer {
  status: number;
  runId?: string;
  replayed: boolean;
  /** When the request was sent and when its answer came (ms since the epoch). */
  sentAt: number;
  answeredAt: number;
}

async function deliver(base: string, i: number, key: string): Promise<Answer> {
  const sentAt = Date.now();
  try {
    const res = await fetch(`${base}/hooks/agent`, {
      method: "POST",
      headers: { authorization: `Bearer ${HOOK_TOKEN}`, "content-type": "application/json", "idempotency-key": key },
      body: JSON.stringify({ message: `delivery ${i}`, sessionKey: `hook:s${i % 8}` }),
    });
    const body = (await res.json().catch(() => ({}))) as { runId?: string };
    return {
      status: res.status,
      ...(body.runId ? { runId: body.runId } : {}),
      replayed: res.headers.get("idempotent-replayed") === "true",
      sentAt,
      answeredAt: Date.now(),
    };
  } catch {
    return { status: 0, replayed: false, sentAt, answeredAt: Date.now() };
  }
}

describePostgres("two receivers behind haproxy and one consumer over one Postgres", () => {
  let pg: PostgresCluster;
  const gateways: GatewayProcess[] = [];
  let proxy: Awaited<ReturnType<typeof startHaproxy>> | undefined;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await proxy?.stop();
    await Promise.all(gateways.map((g) => g.stop()));
    await pg?.cleanup();
  });

  it(`${DELIVERIES} keyed deliveries, a fifth retried on the other receiver, one receiver kill -9'd: every 2xx has one run, succeeded`, async () => {
    const url = await pg.createDatabase();
    const db = new URL(url).pathname.slice(1);
    const env = { PG_URL: url };
    const [a, b] = await Promise.all([
      startGateway({ config: pgConfig(), env, args: ["--role", "receiver"], startTimeoutMs: 60_000 }),
      startGateway({ config: pgConfig(), env, args: ["--role", "receiver"], startTimeoutMs: 60_000 }),
    ]);
    gateways.push(a!, b!);
    const consumer = await startGateway({ config: pgConfig(), env, startTimeoutMs: 60_000 });
    gateways.push(consumer);
    proxy = await startHaproxy([a!.port, b!.port]);
    const base = `http://127.0.0.1:${proxy.port}`;

    const answers = new Map<string, Answer[]>();
    const started = Date.now();
    let next = 0;
    let killed = false;
    const worker = async (): Promise<void> => {
      for (;;) {
        const i = next++;
        if (i >= DELIVERIES) return;
        if (!killed && i >= DELIVERIES / 2) {
          killed = true;
          await a!.kill9();
        }
        const key = `evt-${i}`;
        const list: Answer[] = [];
        // A sender retries until it has an answer it keeps (a 2xx); a fifth of the senders send their delivery twice.
        for (let send = 0; send < (i % RETRIED_SHARE === 0 ? 2 : 1); send++) {
          for (let attempt = 0; attempt < 20; attempt++) {
            const r = await deliver(base, i, key);
            list.push(r);
            if (r.status >= 200 && r.status < 300) break;
            await new Promise((res) => setTimeout(res, 100));
          }
        }
        answers.set(key, list);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    const sendSeconds = (Date.now() - started) / 1000;

    const ok = [...answers.values()].flatMap((l) => l.filter((r) => r.status >= 200 && r.status < 300));
    // Every key got a 2xx, and every 2xx of one key names the same run.
    expect(answers.size).toBe(DELIVERIES);
    for (const [key, list] of answers) {
      const runIds = new Set(list.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.runId));
      expect({ key, runIds: runIds.size }).toEqual({ key, runIds: 1 });
    }
    // Each key's later 2xx answers are replays of its first (whichever receiver answered them).
    for (const [key, list] of answers) {
      const twoXx = list.filter((r) => r.status >= 200 && r.status < 300);
      expect({ key, laterNotReplayed: twoXx.slice(1).filter((r) => !r.replayed).length }).toEqual({ key, laterNotReplayed: 0 });
    }
    const replays = ok.filter((r) => r.replayed).length;
    expect(replays).toBeGreaterThanOrEqual(DELIVERIES / RETRIED_SHARE);

    const sql = async (q: string) => (await pg.psql(q, db)).trim();
    expect(await sql("SELECT count(*) FROM inbound_webhooks.runs")).toBe(String(DELIVERIES));
    await until(
      async () => (await sql("SELECT count(*) FROM inbound_webhooks.runs WHERE status = 'succeeded'")) === String(DELIVERIES),
      "every run succeeded",
      {
        timeoutMs: 300_000,
      },
    );
    // Per-session order kept. Two receivers take one session's deliveries at the same moment, and seq is drawn
    // before a commit, so seq is not the order the senders saw; the order they saw is: a delivery answered 2xx
    // before another of its session was first sent was accepted first, and its run starts first (a CI run at
    // 5,000 had one pair, sent at the same moment to the two receivers, started in the other order of seq).
    // (One run at a time per session is the store's own rule: a unique index on the session of the running runs.)
    const rows = (await sql("SELECT id, session_key, started_at FROM inbound_webhooks.runs")).split("\n").map((l) => l.split("|"));
    const runOf = new Map(rows.map(([id, session, started]) => [id!, { session: session!, started: Date.parse(started!) }]));
    const bySession = new Map<string, Array<{ key: string; acceptedBy: number; sentFrom: number; started: number }>>();
    for (const [key, list] of answers) {
      const first2xx = list.find((r) => r.status >= 200 && r.status < 300)!;
      const run = runOf.get(first2xx.runId!)!;
      const entry = { key, acceptedBy: first2xx.answeredAt, sentFrom: list[0]!.sentAt, started: run.started };
      bySession.set(run.session, [...(bySession.get(run.session) ?? []), entry]);
    }
    const outOfOrder: string[] = [];
    for (const runs of bySession.values()) {
      const byAccepted = [...runs].sort((x, y) => x.acceptedBy - y.acceptedBy);
      // Every earlier-accepted run started no later than each run first sent after its answer (the latest start so far, against each later send).
      let j = 0;
      let latestStart = -Infinity;
      let latestKey = "";
      for (const b of [...runs].sort((x, y) => x.sentFrom - y.sentFrom)) {
        for (; j < byAccepted.length && byAccepted[j]!.acceptedBy < b.sentFrom; j++)
          if (byAccepted[j]!.started > latestStart) [latestStart, latestKey] = [byAccepted[j]!.started, byAccepted[j]!.key];
        if (latestStart > b.started) outOfOrder.push(`${latestKey} (answered before ${b.key} was sent) started after it`);
      }
    }
    expect(outOfOrder).toEqual([]);
    const runIds = new Set(ok.map((r) => r.runId));
    // The runs the answers name are the runs stored (read back whole: an IN list of 5,000 ids is over the length of one argument psql takes).
    const stored = new Set((await sql("SELECT id FROM inbound_webhooks.runs")).split("\n"));
    expect(runIds.size).toBe(DELIVERIES);
    expect([...runIds].filter((id) => !stored.has(id!))).toEqual([]);
    const refused = [...answers.values()].flat().length - ok.length;
    const drainSeconds = (Date.now() - started) / 1000;
    process.stdout.write(
      `receivers-behind-haproxy: ${DELIVERIES} deliveries (${ok.length} 2xx answers, ${replays} replayed, ${refused} answered otherwise or cut off and retried) sent in ${sendSeconds.toFixed(1)} s, all succeeded after ${drainSeconds.toFixed(1)} s\n`,
    );
  });
});
