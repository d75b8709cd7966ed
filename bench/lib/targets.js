"use strict";
/**
 * What `npm run bench` measures against: the baseline servers (bench/baseline-server.js)
 * and the real gateway (built dist, started through the e2e helper), plus the
 * autocannon call and the row of a result.
 */
const path = require("node:path");
const fs = require("node:fs");
const os = require("node:os");
const { spawn } = require("node:child_process");
const autocannon = require("autocannon");
const { createJiti } = require("jiti");

const ROOT = path.resolve(__dirname, "..", "..");
const TOKEN = "bench-hook-token-0123456789abcdef";
const AUTH = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
const { startGateway } = createJiti(__filename)(path.join(ROOT, "test/helpers/gateway-process.ts"));

const WAKE_BODY = '{"text":"bench","mode":"next-heartbeat"}';
const AGENT_BODY = '{"message":"bench","deliver":false,"wakeMode":"next-heartbeat"}';
const PUSH_BODY = JSON.stringify({
  ref: "refs/heads/main",
  repository: { full_name: "octo/app" },
  pusher: { name: "octocat" },
  head_commit: { id: "6dcb09b5b57875f334f61aebed695e2e4193db5e", message: "Fix the start-up crash" },
});

function startBaseline(kind, durability) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${kind}-`));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, "bench", "baseline-server.js"), kind, dir, durability], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, BENCH_TOKEN: TOKEN },
    });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = /^listening: (\S+)$/m.exec(out);
      if (m) {
        resolve({
          url: m[1],
          stop: () =>
            new Promise((r) => {
              child.on("exit", () => (fs.rmSync(dir, { recursive: true, force: true }), r()));
              child.kill("SIGTERM");
            }),
        });
      }
    });
    child.on("exit", (code) => reject(new Error(`baseline ${kind} exited with ${code} before listening`)));
  });
}

/**
 * The gateway as the bench runs it: rate limiting off, heartbeats off (accepted wakes
 * stay pending, so the main queue's bound is lifted), the echo runner with `delayMs`
 * (a long delay keeps runs from executing while accepts are measured).
 */
function gatewayConfig({ durability, delayMs = 600000, maxConcurrent = 4, hooks = {} } = {}) {
  const config = {
    hooks: {
      enabled: true,
      token: TOKEN,
      rateLimit: { enabled: false },
      runs: { maxQueued: 1000000, maxConcurrent, shutdownGraceSeconds: 1 },
      mappings: [
        {
          id: "gh-push",
          match: { path: "github" },
          action: "agent",
          name: "GitHub",
          messageTemplate: "Push to {{ repository.full_name }} ({{ ref }}) by {{ pusher.name }}: {{ head_commit.message }}",
          deliver: false,
        },
        ...(hooks.mappings ?? []),
      ],
      ...(hooks.maxBodyBytes !== undefined ? { maxBodyBytes: hooks.maxBodyBytes } : {}),
    },
    agents: { runner: { kind: "echo", delayMs }, defaults: { heartbeat: { every: "off" } } },
    session: { main: { maxPending: 10000000 } },
  };
  if (durability) {
    config.hooks.durability = durability;
    config.gateway = { durability };
  }
  return config;
}

async function launchGateway(opts = {}) {
  return startGateway({ config: gatewayConfig(opts), dir: opts.dir, startTimeoutMs: 120000 });
}

async function stopGateway(gw, { keep = false } = {}) {
  await gw.kill9();
  if (!keep) fs.rmSync(gw.dir, { recursive: true, force: true });
}

function cannon(opts) {
  return autocannon({ method: "POST", ...opts });
}

function summary(r) {
  const twoxx = Object.entries(r.statusCodeStats ?? {})
    .filter(([code]) => code.startsWith("2"))
    .reduce((n, [, s]) => n + Number(s.count), 0);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, ok: twoxx, bad: r.non2xx + r.errors + r.timeouts };
}

/**
 * Waits (at most BENCH_QUIET_WAIT_S, default 120 s) until the 1-minute load average is below
 * BENCH_MAX_LOAD (default 1): a pair's round started above it does not count (SPEC §14), and
 * the previous round's own load takes about half a minute to fade. Returns the load average then.
 */
async function quiet(log = () => {}) {
  const max = Number(process.env.BENCH_MAX_LOAD ?? 1);
  const deadline = Date.now() + Number(process.env.BENCH_QUIET_WAIT_S ?? 120) * 1000;
  let waited = false;
  while (os.loadavg()[0] >= max && Date.now() < deadline) {
    if (!waited) log(`  waiting for the load average (${os.loadavg()[0].toFixed(2)}) to fall below ${max}`);
    waited = true;
    await new Promise((r) => setTimeout(r, 2000));
  }
  return os.loadavg()[0];
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

module.exports = {
  quiet,
  ROOT,
  TOKEN,
  AUTH,
  WAKE_BODY,
  AGENT_BODY,
  PUSH_BODY,
  startBaseline,
  launchGateway,
  stopGateway,
  cannon,
  summary,
  median,
  gatewayConfig,
};
