"use strict";
/**
 * The bench's third stall table (SPEC §14; issue 35, findings 1–3): the slowest `GET /healthz`
 * probe while a request or a clean-up reads state a sender stored — the ledger search, the
 * age prune, the run listing — at the sizes the issue reproduced and at the defaults' maximum
 * (hooks.ledger.maxEntries 10,000 rows of 64 KiB; 500 runs of 250 KB, the largest listing).
 *
 * The state is stored through the real gateway (autocannon), except the age: the gateway is
 * killed (-9), its rows are made 8 days old in the SQLite file, and it is started again on the
 * same state, where the next write finds them past hooks.ledger.retentionDays (7). The run
 * prune's runs are made finished and due 20 s after the restart (its first step runs at start,
 * before the gateway listens), so the store's background prune (every 60 s) finds them while
 * the gateway runs and is probed.
 *
 * While a row waits for a prune to end, the rows left are counted on a worker thread: a
 * COUNT(*) over 10,000 rows of 64 KiB on the probe's own thread took up to 43 ms, and the probe
 * timed the bench's own wait as the gateway's stall (the 82.5 ms "intermittent stall of the age
 * prune" of an earlier round).
 */
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const { Worker } = require("node:worker_threads");
const Database = require("better-sqlite3");
const { AUTH, TOKEN, launchGateway, stopGateway, cannon } = require("./targets");

/** 64 KiB of `a a a …`: what the issue stored (each an ordinary 400 invalid_json, kept with its body). */
const A_BODY = "a ".repeat(32_768);
/** The search: a quoted word of 199 characters that the index's tokenizer cuts into 100 tokens. */
const PHRASE = Array.from({ length: 100 }, () => "a").join(".");
const RUN_BODY = JSON.stringify({ message: "x".repeat(250_000), deliver: false });
const DAY_MS = 86_400_000;

/** Probes `/healthz` every 5 ms on its own connection while `work()` runs; the slowest answer bounds the longest stall. */
async function probeWhile(baseUrl, work) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const probeOnce = () =>
    new Promise((resolve) => {
      const t = process.hrtime.bigint();
      http
        .get(`${baseUrl}/healthz`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve({ ms: Number(process.hrtime.bigint() - t) / 1e6, failed: false }));
        })
        .on("error", () => resolve({ ms: Number(process.hrtime.bigint() - t) / 1e6, failed: true }));
    });
  await probeOnce();
  let worst = 0;
  let failed = 0;
  let running = true;
  const probing = (async () => {
    while (running) {
      const probe = await probeOnce();
      if (probe.failed) failed++;
      worst = Math.max(worst, probe.ms);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  try {
    const result = await work();
    return { worst: Math.round(worst * 10) / 10, failed, result };
  } finally {
    running = false;
    await probing;
    agent.destroy();
  }
}

function get(url) {
  return new Promise((resolve) => {
    const t = process.hrtime.bigint();
    http
      .get(url, { headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - t) / 1e6, body: Buffer.concat(chunks).toString() }));
      })
      .on("error", () => resolve({ status: "error", ms: Number(process.hrtime.bigint() - t) / 1e6, body: "" }));
  });
}

/** The plugin database under a gateway's dir. */
function databaseFile(dir) {
  const found = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name === "inbound-webhooks.sqlite") found.push(path.join(d, e.name));
    }
  };
  walk(dir);
  if (found.length !== 1) throw new Error(`expected one inbound-webhooks.sqlite under ${dir}, found ${found.length}`);
  return found[0];
}

/** Stores `n` deliveries of 64 KiB of `a a a …` (400 invalid_json, kept with their bodies). */
async function storeBodies(gw, n) {
  await cannon({ url: `${gw.baseUrl}/hooks/wake`, body: A_BODY, headers: AUTH, connections: 4, amount: n });
  await new Promise((r) => setTimeout(r, 500));
}

/**
 * Counts `table`'s rows every 100 ms on a worker thread (one read-only connection), never on the
 * probe's thread; `until(done, timeoutMs)` resolves with the count once `done(count)` holds or the
 * time passed, and rejects with the worker's error (a failed count, a worker that died).
 */
function countOffThread(file, table) {
  const source = `
    const { parentPort, workerData } = require("node:worker_threads");
    const Database = require(workerData.driver);
    const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
    const count = db.prepare(workerData.sql);
    const tick = () => {
      try {
        parentPort.postMessage({ n: count.get().n });
      } catch (e) {
        parentPort.postMessage({ error: String(e && e.message) });
        return;
      }
      setTimeout(tick, 100);
    };
    tick();`;
  const worker = new Worker(source, {
    eval: true,
    workerData: { file, driver: require.resolve("better-sqlite3"), sql: `SELECT COUNT(*) AS n FROM ${table}` },
  });
  let latest;
  let failure;
  const waiting = new Set();
  const tell = () => {
    for (const w of [...waiting]) w();
  };
  worker.on("message", (m) => {
    if (m.error !== undefined) failure = new Error(`counting ${table} failed: ${m.error}`);
    else latest = m.n;
    tell();
  });
  worker.on("error", (e) => {
    failure = e;
    tell();
  });
  return {
    until(done, timeoutMs) {
      return new Promise((resolve, reject) => {
        const end = (settle) => {
          clearTimeout(timer);
          waiting.delete(check);
          settle();
        };
        const timer = setTimeout(() => end(() => resolve(latest)), timeoutMs);
        const check = () => {
          if (failure) end(() => reject(failure));
          else if (latest !== undefined && done(latest)) end(() => resolve(latest));
        };
        waiting.add(check);
        check();
      });
    },
    stop: () => worker.terminate(),
  };
}

const rowsIn = (file) => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT COUNT(*) AS n FROM deliveries").get().n;
  } finally {
    db.close();
  }
};

/** The slowest probe while the search runs `repeat` times over `rows` stored bodies. */
async function searchRow(rows, repeat) {
  const gw = await launchGateway({});
  try {
    await storeBodies(gw, rows);
    const stored = rowsIn(databaseFile(gw.dir));
    const url = `${gw.baseUrl}/hooks/deliveries?limit=50&search=${encodeURIComponent(PHRASE)}`;
    const p = await probeWhile(gw.baseUrl, async () => {
      const answers = [];
      for (let i = 0; i < repeat; i++) answers.push(await get(url));
      return answers;
    });
    const found = p.result.map((a) => (a.status === 200 ? JSON.parse(a.body).deliveries.length : a.status));
    return {
      scenario: `search a.a.a… (100 tokens), ${stored.toLocaleString("en")} rows of 64 KiB`,
      status: [...new Set(p.result.map((a) => a.status))].join("/"),
      "answer ms (max)": Math.round(Math.max(...p.result.map((a) => a.ms))),
      "slowest probe ms": p.worst,
      "failed probes": p.failed,
      note: `found ${[...new Set(found)].join("/")}`,
    };
  } finally {
    await stopGateway(gw);
  }
}

/** The slowest probe from the write that finds `rows` stored bodies past retentionDays until they are gone. */
async function pruneRow(rows) {
  const gw = await launchGateway({});
  await storeBodies(gw, rows);
  await stopGateway(gw, { keep: true });
  const file = databaseFile(gw.dir);
  const db = new Database(file);
  const aged = db.prepare("UPDATE deliveries SET received_at = received_at - ?").run(8 * DAY_MS).changes;
  db.close();
  const again = await launchGateway({ dir: gw.dir });
  let counting;
  try {
    // The restarted gateway probed alone first (5 s, nothing sent): its start's own work, apart from the prune.
    const settled = await probeWhile(again.baseUrl, () => new Promise((r) => setTimeout(r, 5000)));
    const started = Date.now();
    const p = await probeWhile(again.baseUrl, async () => {
      // One ordinary delivery: its write passes the retention limit.
      await cannon({ url: `${again.baseUrl}/hooks/wake`, body: '{"text":"after","mode":"next-heartbeat"}', headers: AUTH, connections: 1, amount: 1 });
      counting = countOffThread(file, "deliveries");
      const left = await counting.until((n) => n <= 1, 180_000);
      return { left, ms: Date.now() - started };
    });
    return {
      scenario: `age prune of ${aged.toLocaleString("en")} rows of 64 KiB`,
      status: `${p.result.left} left`,
      "answer ms (max)": "",
      "slowest probe ms": p.worst,
      "failed probes": p.failed,
      note: `pruned in ${(p.result.ms / 1000).toFixed(1)} s; the 5 s after the restart before it: ${settled.worst} ms`,
    };
  } finally {
    await counting?.stop();
    await stopGateway(again);
  }
}

/** How long after the restart the run prune's runs become due (SPEC §7 "Bounded disk": hooks.runs.retentionDays). */
const RUNS_DUE_AFTER_MS = 20_000;

/**
 * The slowest probe while the store's background prune deletes 500 finished runs of 250 KB past
 * hooks.runs.retentionDays (7), in steps of RUN_PRUNE_STEP_ROWS (100): stored through the gateway,
 * made finished and due RUNS_DUE_AFTER_MS after the restart in the file, then found by the prune's
 * timer (every 60 s) while the gateway runs.
 */
async function runPruneRow() {
  const gw = await launchGateway({});
  await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: RUN_BODY, headers: AUTH, connections: 4, amount: 500 });
  await stopGateway(gw, { keep: true });
  const file = databaseFile(gw.dir);
  const db = new Database(file);
  const due = new Date(Date.now() + RUNS_DUE_AFTER_MS - 7 * DAY_MS).toISOString();
  const finished = db
    .prepare("UPDATE runs SET status = 'succeeded', started_at = COALESCE(started_at, created_at), finished_at = ?, summary = 'done', summary_pending = 0")
    .run(due).changes;
  db.close();
  const again = await launchGateway({ dir: gw.dir });
  const counting = countOffThread(file, "runs");
  try {
    const started = Date.now();
    // Due 20 s after the restart: a start slower than that would have pruned them before the probe, and the row measures nothing.
    const present = await counting.until(() => true, 5000);
    if (!(present > 0))
      throw new Error(`the run prune row found ${present} runs when the gateway listened: its start took longer than ${RUNS_DUE_AFTER_MS} ms`);
    const p = await probeWhile(again.baseUrl, async () => {
      const left = await counting.until((n) => n === 0, 150_000);
      return { left, ms: Date.now() - started };
    });
    return {
      scenario: `run prune of ${finished.toLocaleString("en")} finished runs of 250 KB`,
      status: `${p.result.left} left`,
      "answer ms (max)": "",
      "slowest probe ms": p.worst,
      "failed probes": p.failed,
      note: `due ${RUNS_DUE_AFTER_MS / 1000} s after the restart, gone ${(p.result.ms / 1000).toFixed(1)} s after it (the prune's timer: every 60 s)`,
    };
  } finally {
    await counting.stop();
    await stopGateway(again);
  }
}

/** The slowest probe while `GET /hooks/runs?limit=500` runs `repeat` times over 500 runs of 250 KB. */
async function runListRow(repeat) {
  const gw = await launchGateway({});
  try {
    await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: RUN_BODY, headers: AUTH, connections: 4, amount: 500 });
    const p = await probeWhile(gw.baseUrl, async () => {
      const answers = [];
      for (let i = 0; i < repeat; i++) answers.push(await get(`${gw.baseUrl}/hooks/runs?limit=500`));
      return answers;
    });
    const listed = p.result.map((a) => (a.status === 200 ? JSON.parse(a.body).runs.length : a.status));
    return {
      scenario: "GET /hooks/runs?limit=500, 500 runs of 250 KB",
      status: [...new Set(p.result.map((a) => a.status))].join("/"),
      "answer ms (max)": Math.round(Math.max(...p.result.map((a) => a.ms))),
      "slowest probe ms": p.worst,
      "failed probes": p.failed,
      note: `listed ${[...new Set(listed)].join("/")}`,
    };
  } finally {
    await stopGateway(gw);
  }
}

/** The control row: the slowest probe of an idle gateway over `seconds` (what the machine's load alone stalls it). */
async function idleRow(seconds) {
  const gw = await launchGateway({});
  try {
    const p = await probeWhile(gw.baseUrl, () => new Promise((r) => setTimeout(r, seconds * 1000)));
    return {
      scenario: `idle gateway, ${seconds} s (control)`,
      status: "",
      "answer ms (max)": "",
      "slowest probe ms": p.worst,
      "failed probes": p.failed,
      note: "",
    };
  } finally {
    await stopGateway(gw);
  }
}

/** The table's rows; `only` (a list of row keys: idle, search, prune, runs, run-prune) picks some. */
async function stallOverStoredState({ repeat, quick = false, only, log = () => {} }) {
  const want = (k) => !only || only.includes(k);
  const rows = [];
  if (want("idle")) {
    rows.push(await idleRow(quick ? 5 : 20));
    log("  stored state: idle control done");
  }
  if (want("search")) {
    for (const n of quick ? [400] : [400, 10_000]) {
      rows.push(await searchRow(n, repeat));
      log(`  stored state: search over ${n} rows done`);
    }
  }
  if (want("prune")) {
    for (const n of quick ? [2_000] : [2_000, 10_000]) {
      rows.push(await pruneRow(n));
      log(`  stored state: age prune of ${n} rows done`);
    }
  }
  if (want("runs")) {
    rows.push(await runListRow(repeat));
    log("  stored state: run listing done");
  }
  if (want("run-prune")) {
    rows.push(await runPruneRow());
    log("  stored state: run prune done");
  }
  return rows;
}

module.exports = { stallOverStoredState, PHRASE };
