#!/usr/bin/env node
"use strict";
/**
 * `npm run bench`: the accept path of the real gateway (built dist) against bare
 * node:http servers doing the same durable work (bench/baseline-server.js), on
 * loopback, with autocannon — the SPEC §14 figures.
 *
 * Throughput: 3 alternating rounds (baseline, gateway, baseline, gateway, …) per
 * pair, same connections and duration; the table shows medians and the ratio of
 * the medians. Pairs: /wake, /agent and /agent with Idempotency-Key against the baselines
 * that store every delivery once (one SQLite row per request, one transaction per event-loop
 * turn; /agent adds the run row to it) — each in "process" durability and in "os" (the
 * baselines then synchronous=FULL) (bench/baseline-server.js).
 * A mapped GitHub push with a template is gateway-only (absolute, and ÷ /agent).
 * Then: p99 with 1,000 queued runs vs an empty queue; RSS over 1,000 rejected
 * 10 MB bodies; the slowest /healthz probe while adversarial bodies are posted at
 * default limits; the same probe while stored state is read or pruned (bench/lib/stored-state.js:
 * a ledger search, the age prune, the run listing); runs/s over the first vs the last 1,000 of 10,000 runs.
 *
 * The default-limit bodies include a 100-item fan-out of {{ payload | json }} (stopped by
 * hooks.maxRenderedBytes). Then the same probe with hooks.maxBodyBytes raised to 8 MiB
 * (malformed multipart).
 *
 * Flags: --quick (short rounds, smaller counts: for a development loop),
 * --process-only (skip the "os" pairs, e.g. on a build without hooks.durability),
 * --pairs-only (only the throughput pairs: with --process-only, the three "process" pairs),
 * --stalls-only (only the three /healthz probe tables: `node bench/run.js --stalls-only`),
 * --raised-limits-only (only the second, the multipart rows at hooks.maxBodyBytes 8 MiB),
 * --stored-state-only[=idle,search,prune,runs,run-prune] (only the third, or some of its rows),
 * --openclaw (only the pair inside a real OpenClaw gateway: our /webhooks/wake and /webhooks/agent
 * against OpenClaw's built-in /hooks/wake and /hooks/agent, bench/lib/openclaw.js; needs the pinned
 * Node 24 and openclaw from scripts/ci/node24.sh and scripts/ci/openclaw.sh),
 * --postgres-only (only the receiver on Postgres beside the single process on SQLite, with the
 * Postgres statements per accepted delivery, bench/lib/postgres.js; part of the full run where
 * Debian's postgresql is installed).
 * Environment: BENCH_DURATION (s per round), BENCH_CONNECTIONS (default 10), BENCH_ROUNDS (default 3).
 * Nothing is asserted: it prints (the acceptance targets are shown beside the figures).
 */
const os = require("node:os");
const { randomUUID } = require("node:crypto");
const T = require("./lib/targets");
const S = require("./lib/scenarios");
const { stallOverStoredState } = require("./lib/stored-state");
const { postgresTable } = require("./lib/postgres");

const QUICK = process.argv.includes("--quick");
const PROCESS_ONLY = process.argv.includes("--process-only");
const STALLS_ONLY = process.argv.includes("--stalls-only");
const RAISED_ONLY = process.argv.includes("--raised-limits-only");
const STORED_ARG = process.argv.find((a) => a.startsWith("--stored-state-only"));
const STORED_ONLY = STORED_ARG === undefined ? undefined : STORED_ARG.includes("=") ? STORED_ARG.split("=")[1].split(",") : [];
const OPENCLAW = process.argv.includes("--openclaw");
const POSTGRES_ONLY = process.argv.includes("--postgres-only");
const PAIRS_ONLY = process.argv.includes("--pairs-only");
const DURATION = Number(process.env.BENCH_DURATION ?? (QUICK ? 2 : 5));
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const log = (...a) => console.error(...a);

const withKey = (body) => [{ body, setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": randomUUID() } }) }];

/** req/s and p99 of one round against a baseline server of `kind`. */
async function baselineRound(kind, durability, path, body, into) {
  const b = await T.startBaseline(kind, durability ?? "process");
  try {
    const r = T.summary(await T.cannon({ url: `${b.url}/hooks/${path}`, body, headers: T.AUTH, connections: CONNECTIONS, duration: DURATION }));
    into.rps.push(r.rps);
    into.p99.push(r.p99);
  } finally {
    await b.stop();
  }
}

/** Median req/s and p99 of `rounds` alternating rounds of baseline and gateway. */
async function pair({ label, baseline, durability, path, body, keyed }) {
  const base = { rps: [], p99: [] };
  const gwr = { rps: [], p99: [], bad: 0 };
  const load = [];
  for (let i = 0; i < ROUNDS; i++) {
    load.push(await T.quiet(log));
    await baselineRound(baseline, durability, path, body, base);
    const gw = await T.launchGateway({ durability });
    try {
      const opts = { url: `${gw.baseUrl}/hooks/${path}`, headers: T.AUTH, connections: CONNECTIONS, duration: DURATION };
      const r = T.summary(await T.cannon(keyed ? { ...opts, requests: withKey(body) } : { ...opts, body }));
      gwr.rps.push(r.rps);
      gwr.p99.push(r.p99);
      gwr.bad += r.bad;
    } finally {
      await T.stopGateway(gw);
    }
    log(
      `  ${label} round ${i + 1}: baseline ${Math.round(base.rps.at(-1))} req/s, gateway ${Math.round(gwr.rps.at(-1))} req/s (load ${load.at(-1).toFixed(2)})`,
    );
  }
  const b = T.median(base.rps);
  const g = T.median(gwr.rps);
  return {
    pair: label,
    "baseline req/s": Math.round(b),
    "gateway req/s": Math.round(g),
    ratio: (g / b).toFixed(2),
    "baseline p99 ms": T.median(base.p99),
    "gateway p99 ms": T.median(gwr.p99),
    "gateway non-2xx": gwr.bad,
    // A pair whose rounds started at a load average above 1 does not count (SPEC §14).
    "load avg (max)": Math.max(...load).toFixed(2),
  };
}

async function gatewayOnly({ path, body, durability }) {
  const rps = [];
  for (let i = 0; i < ROUNDS; i++) {
    const gw = await T.launchGateway({ durability });
    try {
      rps.push(T.summary(await T.cannon({ url: `${gw.baseUrl}/hooks/${path}`, body, headers: T.AUTH, connections: CONNECTIONS, duration: DURATION })));
    } finally {
      await T.stopGateway(gw);
    }
  }
  return { rps: T.median(rps.map((r) => r.rps)), p99: T.median(rps.map((r) => r.p99)), bad: rps.reduce((n, r) => n + r.bad, 0) };
}

/** The third stall table: stored state read or pruned (`only`: some of its rows). */
async function storedStateTable(only) {
  const load = await T.quiet(log);
  const rows = await stallOverStoredState({ repeat: QUICK ? 1 : 3, quick: QUICK, only: only && only.length ? only : undefined, log });
  return () => {
    console.log(`slowest /healthz probe while stored state is read or pruned (default limits; target < 50 ms; load average at the start ${load.toFixed(2)})`);
    console.table(rows);
  };
}

/**
 * The three stall tables, each started once the load average is below 1 (the scenario before
 * leaves the machine busy, and a table started above it does not count); the load average at
 * each table's start is printed with it.
 */
async function stallTables() {
  const load = await T.quiet(log);
  const stalls = await S.stallUnderAdversarialBodies({ repeat: QUICK ? 1 : 3 });
  log("  adversarial bodies done");
  const printRaised = await raisedLimitsTable();
  const printStored = await storedStateTable();
  return () => {
    console.log(`slowest /healthz probe while adversarial bodies are posted (default limits; target < 50 ms; load average at the start ${load.toFixed(2)})`);
    console.table(stalls);
    printRaised();
    printStored();
  };
}

/** The second stall table: the multipart bodies only hooks.maxBodyBytes 8 MiB lets in. */
async function raisedLimitsTable() {
  const load = await T.quiet(log);
  const rows = await S.stallUnderRaisedLimits({ repeat: QUICK ? 1 : 3 });
  log("  adversarial bodies with raised limits done");
  return () => {
    console.log(
      `slowest /healthz probe while adversarial bodies are posted (hooks.maxBodyBytes 8 MiB; target < 50 ms; load average at the start ${load.toFixed(2)})`,
    );
    console.table(rows);
  };
}

async function main() {
  const started = new Date();
  if (OPENCLAW) {
    await require("./lib/openclaw").runOpenClawBench({ quick: QUICK });
    return;
  }
  if (POSTGRES_ONLY) {
    printPostgres(await postgresTable({ rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, log }));
    return;
  }
  if (STORED_ONLY) {
    (await storedStateTable(STORED_ONLY))();
    return;
  }
  if (RAISED_ONLY) {
    (await raisedLimitsTable())();
    return;
  }
  if (STALLS_ONLY) {
    (await stallTables())();
    return;
  }
  log(`bench: ${QUICK ? "quick, " : ""}${ROUNDS} round(s) × ${DURATION} s, ${CONNECTIONS} connections`);
  const pairs = [];
  for (const durability of PROCESS_ONLY ? [undefined] : [undefined, "os"]) {
    const d = durability ?? "process";
    pairs.push(await pair({ label: `/wake (${d})`, baseline: "wake", durability, path: "wake", body: T.WAKE_BODY }));
    pairs.push(await pair({ label: `/agent (${d})`, baseline: "agent", durability, path: "agent", body: T.AGENT_BODY }));
    if (!durability)
      pairs.push(await pair({ label: `/agent + Idempotency-Key (${d})`, baseline: "agent", durability, path: "agent", body: T.AGENT_BODY, keyed: true }));
  }
  if (PAIRS_ONLY) {
    console.table(pairs);
    return;
  }
  const postgres = await postgresTable({ rounds: ROUNDS, duration: DURATION, connections: CONNECTIONS, log });
  log("  the Postgres pair done");
  const agentRow = pairs.find((p) => p.pair === "/agent (process)");
  const push = await gatewayOnly({ path: "github", body: T.PUSH_BODY });
  log("  mapped GitHub push done");
  const backlog = await S.p99WithBacklog({ backlog: QUICK ? 300 : 1000, sample: QUICK ? 150 : 500, connections: CONNECTIONS });
  log("  p99 with a backlog done");
  const rss = await S.rssOverHugeBodies({ count: QUICK ? 100 : 1000, mb: 10, parallel: 4 });
  log("  RSS over rejected bodies done");
  const printStalls = await stallTables();
  const runs = await S.runsPerSecond({ total: QUICK ? 2000 : 10000, window: QUICK ? 200 : 1000, connections: CONNECTIONS });
  log("  runs/s done");

  const cpus = os.cpus();
  console.log(`\n${started.toISOString()} · node ${process.version} · ${cpus.length} × ${cpus[0]?.model ?? "cpu"} · ${os.platform()} ${os.release()}`);
  console.log(`loopback, autocannon ${CONNECTIONS} connections, ${ROUNDS} alternating round(s) × ${DURATION} s (medians)\n`);
  console.table(pairs);
  console.table([
    {
      figure: "mapped GitHub push (template) req/s",
      value: Math.round(push.rps),
      note: `÷ /agent ${(push.rps / agentRow["gateway req/s"]).toFixed(2)}; p99 ${push.p99} ms; non-2xx ${push.bad}`,
    },
    {
      figure: `/agent p99 ms, empty → ${QUICK ? 300 : 1000} queued`,
      value: `${backlog.empty.p99} → ${backlog.full.p99}`,
      note: `ratio ${(backlog.full.p99 / Math.max(1, backlog.empty.p99)).toFixed(2)} (target ≤ 1.5)`,
    },
    {
      figure: `RSS MB over ${QUICK ? 100 : 1000} rejected 10 MB bodies`,
      value: `${rss.before.toFixed(0)} → ${rss.after.toFixed(0)} (peak ${rss.peak.toFixed(0)})`,
      note: `growth ${(rss.after - rss.before).toFixed(1)} MB (target < 50); answers ${JSON.stringify(rss.statuses)}`,
    },
    {
      figure: `runs/s, first vs last ${QUICK ? 200 : 1000} of ${QUICK ? 2000 : 10000}`,
      value: `${runs.first.toFixed(0)} → ${runs.last.toFixed(0)}`,
      note: `last ÷ first ${(runs.last / runs.first).toFixed(2)} (target ≥ 0.8); finished ${runs.finished}`,
    },
  ]);
  printPostgres(postgres);
  printStalls();
}

/** The Postgres pair's table (none where Postgres is not installed). */
function printPostgres(rows) {
  if (!rows) return;
  console.log("the receiver on Postgres (gateway start --role receiver, fsync on) beside the single process on SQLite, alternating rounds (medians)");
  console.table(rows);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
