#!/usr/bin/env node
"use strict";
/**
 * `npm run bench`: loopback autocannon benchmark of the real gateway (built dist)
 * against baselines measured in the same run on the same machine:
 *   node:http  → bare HTTP server that reads the body and answers 200
 *   express    → express + express.json() answering 200
 *   gateway    → POST /hooks/wake, POST /hooks/agent, POST /hooks/agent with Idempotency-Key
 * It prints requests/s and latency percentiles, and ratios against the express
 * baseline. Absolute numbers depend on the machine; only the ratios are comparable.
 *
 * Environment: BENCH_DURATION (seconds per target, default 5), BENCH_CONNECTIONS (default 10).
 * Exits 1 when the gateway answered anything but 2xx or a connection failed.
 */
const path = require("node:path");
const fs = require("node:fs");
const { spawn } = require("node:child_process");
const { randomUUID } = require("node:crypto");
const autocannon = require("autocannon");
const { createJiti } = require("jiti");

const ROOT = path.resolve(__dirname, "..");
const DURATION = Number(process.env.BENCH_DURATION ?? 5);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const TOKEN = "bench-hook-token-0123456789abcdef";

// The e2e helper that starts `gateway start` as a child process (TypeScript, loaded with jiti).
const { startGateway } = createJiti(__filename)(path.join(ROOT, "test/helpers/gateway-process.ts"));

function startBaseline(kind) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, "baseline-server.js"), kind], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d.toString();
      const m = /^listening: (\S+)$/m.exec(out);
      if (m) resolve({ url: m[1], stop: () => new Promise((r) => (child.on("exit", r), child.kill("SIGTERM"))) });
    });
    child.on("exit", (code) => reject(new Error(`baseline ${kind} exited with ${code} before listening`)));
  });
}

function cannon(opts) {
  return autocannon({ duration: DURATION, connections: CONNECTIONS, method: "POST", ...opts });
}

function row(name, r) {
  return {
    target: name,
    "req/s": Math.round(r.requests.average),
    "p50 ms": r.latency.p50,
    "p99 ms": r.latency.p99,
    "2xx": Object.entries(r.statusCodeStats ?? {})
      .filter(([code]) => code.startsWith("2"))
      .reduce((n, [, s]) => n + Number(s.count), 0),
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

async function main() {
  const results = [];
  for (const kind of ["http", "express"]) {
    const base = await startBaseline(kind);
    try {
      const r = await cannon({ url: `${base.url}/hooks/wake`, body: '{"text":"bench"}', headers: { "content-type": "application/json" } });
      results.push(row(kind === "http" ? "node:http" : "express", r));
    } finally {
      await base.stop();
    }
  }

  const gw = await startGateway({
    config: {
      hooks: {
        enabled: true,
        token: TOKEN,
        rateLimit: { enabled: false },
        runs: { maxQueued: 1000000, maxConcurrent: 4 },
      },
      agents: { runner: { kind: "echo", delayMs: 0 }, defaults: { heartbeat: { every: "off" } } },
      // Heartbeats are off, so every accepted wake stays pending: lift the main queue's bound
      // (session.main.maxPending, default 10000) so the bench measures accepting, not refusing.
      session: { main: { maxPending: 10000000 } },
    },
  });
  const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };
  try {
    results.push(row("gateway /wake", await cannon({ url: `${gw.baseUrl}/hooks/wake`, body: '{"text":"bench","mode":"next-heartbeat"}', headers: auth })));
    results.push(row("gateway /agent", await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: '{"message":"bench","deliver":false,"wakeMode":"next-heartbeat"}', headers: auth })));
    results.push(
      row(
        "gateway /agent +key",
        await cannon({
          url: `${gw.baseUrl}/hooks/agent`,
          headers: auth,
          requests: [
            {
              body: '{"message":"bench","deliver":false,"wakeMode":"next-heartbeat"}',
              setupRequest: (req) => ({ ...req, headers: { ...req.headers, "idempotency-key": randomUUID() } }),
            },
          ],
        }),
      ),
    );
  } finally {
    await gw.stop("SIGTERM");
    fs.rmSync(gw.dir, { recursive: true, force: true });
  }

  const express = results.find((r) => r.target === "express");
  for (const r of results) {
    r["req/s ÷ express"] = (r["req/s"] / express["req/s"]).toFixed(2);
    r["p99 ÷ express"] = express["p99 ms"] > 0 ? (r["p99 ms"] / express["p99 ms"]).toFixed(2) : "n/a";
  }
  console.log(`\nloopback, ${CONNECTIONS} connections, ${DURATION} s per target (node ${process.version})`);
  console.table(results);
  const bad = results.filter((r) => r.target.startsWith("gateway") && (r.non2xx > 0 || r.errors > 0));
  if (bad.length > 0) {
    console.error(`gateway answered non-2xx or failed: ${bad.map((r) => r.target).join(", ")}`);
    process.exit(1);
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
