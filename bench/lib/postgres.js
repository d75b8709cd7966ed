"use strict";
/**
 * The Postgres pair (SPEC §16, issue 34's bench row): the embedded gateway as a receiver
 * (`gateway start --role receiver`, `hooks.store` on Postgres) beside the single process on
 * SQLite (the default), same requests, same machine, alternating rounds of the same run.
 *
 * The Postgres is a throwaway cluster of Debian's `postgresql` (test/helpers/postgres.ts) with
 * fsync on (a real server's numbers) and pg_stat_statements loaded: each round counts the
 * statements the server ran for the receiver's database while autocannon ran (every statement
 * is a round trip of the `pg` driver: it sends parse, bind and execute together), ÷ the 2xx
 * answers — the issue's "Postgres round trips per accepted delivery" (goal: one per group
 * commit, that is well below one per delivery under concurrency).
 *
 * The SQLite side runs the echo runner with a long delay (as every pair of the bench), so
 * neither side runs agent turns while accepts are measured; the receiver runs none at all.
 */
const path = require("node:path");
const { randomUUID } = require("node:crypto");
const { createJiti } = require("jiti");
const T = require("./targets");

const { startPostgres, postgresBinDir } = createJiti(__filename)(path.join(T.ROOT, "test/helpers/postgres.ts"));

const withKey = (body) => [{ body, setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": randomUUID() } }) }];

/** Statements the server ran for `database` since the last reset (the bench's own reads of the view left out). */
async function statements(pg, database) {
  const out = await pg.psql(
    `SELECT COALESCE(SUM(calls), 0) FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = '${database}') AND query NOT LIKE '%pg_stat_statements%'`,
  );
  return Number(out.trim());
}

/** One autocannon run against `gw`'s `/hooks/<path>`. */
async function load(gw, { path: p, body, keyed, duration, connections }) {
  const opts = { url: `${gw.baseUrl}/hooks/${p}`, headers: T.AUTH, connections, duration };
  return T.summary(await T.cannon(keyed ? { ...opts, requests: withKey(body) } : { ...opts, body }));
}

/**
 * Median req/s and p99 of `rounds` alternating rounds (SQLite single process, then the
 * receiver on a fresh Postgres database), and the receiver's statements per 2xx.
 */
async function postgresPair(pg, { label, path: p, body, keyed, rounds, duration, connections, log }) {
  const sqlite = { rps: [], p99: [], bad: 0 };
  const receiver = { rps: [], p99: [], bad: 0, perDelivery: [] };
  const loads = [];
  for (let i = 0; i < rounds; i++) {
    loads.push(await T.quiet(log));
    const single = await T.launchGateway({});
    try {
      const r = await load(single, { path: p, body, keyed, duration, connections });
      sqlite.rps.push(r.rps);
      sqlite.p99.push(r.p99);
      sqlite.bad += r.bad;
    } finally {
      await T.stopGateway(single);
    }
    const database = `bench_${process.pid}_${label.toLowerCase().replace(/[^a-z]+/g, "_")}_${i}`;
    const url = await pg.createDatabase(database);
    const config = T.gatewayConfig({});
    config.hooks.store = { kind: "postgres", url: { env: "BENCH_PG_URL" } };
    const gw = await startReceiver(config, url);
    try {
      await pg.psql("SELECT pg_stat_statements_reset()");
      const r = await load(gw, { path: p, body, keyed, duration, connections });
      const n = await statements(pg, database);
      receiver.rps.push(r.rps);
      receiver.p99.push(r.p99);
      receiver.bad += r.bad;
      receiver.perDelivery.push(r.ok > 0 ? n / r.ok : NaN);
    } finally {
      await T.stopGateway(gw);
    }
    log(
      `  ${label} round ${i + 1}: SQLite ${Math.round(sqlite.rps.at(-1))} req/s, receiver on Postgres ${Math.round(receiver.rps.at(-1))} req/s, ${receiver.perDelivery.at(-1).toFixed(3)} statements per 2xx`,
    );
  }
  const s = T.median(sqlite.rps);
  const g = T.median(receiver.rps);
  return {
    pair: label,
    "SQLite, one process req/s": Math.round(s),
    "receiver on Postgres req/s": Math.round(g),
    ratio: (g / s).toFixed(2),
    "SQLite p99 ms": T.median(sqlite.p99),
    "receiver p99 ms": T.median(receiver.p99),
    "Postgres statements per 2xx": T.median(receiver.perDelivery).toFixed(3),
    "non-2xx (SQLite / receiver)": `${sqlite.bad} / ${receiver.bad}`,
    "load avg (max)": Math.max(...loads).toFixed(2),
  };
}

/** The embedded gateway as a receiver on `url` (given by environment, as a user would keep a secret). */
function startReceiver(config, url) {
  const { startGateway } = createJiti(__filename)(path.join(T.ROOT, "test/helpers/gateway-process.ts"));
  return startGateway({ config, args: ["--role", "receiver"], env: { BENCH_PG_URL: url }, startTimeoutMs: 120000 });
}

/** The table's rows, or undefined (with a notice) where Postgres is not installed. */
async function postgresTable({ rounds, duration, connections, log = () => {} }) {
  if (postgresBinDir() === undefined) {
    log("  the Postgres pair skipped: Postgres is not installed (Debian: apt-get install postgresql)");
    return undefined;
  }
  const pg = await startPostgres({ fsync: true, settings: { shared_preload_libraries: "pg_stat_statements" } });
  try {
    await pg.psql("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
    const rows = [];
    const common = { rounds, duration, connections, log };
    rows.push(await postgresPair(pg, { ...common, label: "/wake", path: "wake", body: T.WAKE_BODY }));
    rows.push(await postgresPair(pg, { ...common, label: "/agent", path: "agent", body: T.AGENT_BODY }));
    rows.push(await postgresPair(pg, { ...common, label: "/agent + Idempotency-Key", path: "agent", body: T.AGENT_BODY, keyed: true }));
    return rows;
  } finally {
    await pg.cleanup();
  }
}

module.exports = { postgresTable };
