#!/usr/bin/env node
"use strict";
/**
 * Re-measures the marker-neutralisation attacks of the hardening issue against
 * the real gateway process (built dist: run `npm run build` first): each attack
 * is one POST, timed, while `/healthz` is polled every 10 ms from this process;
 * the row shows how long the POST took and the slowest `/healthz` answer seen
 * meanwhile (the gateway's event loop is blocked while it wraps).
 *
 *   1. `/hooks/wake` with 255,000 × `<`
 *   2. `/hooks/wake` with 56,000 × `<`
 *   3. a GitHub-style issue whose body is 24,000 × `«`, rendered by a mapping (no hook token
 *      is needed for the content to get there: any issue author writes it)
 *   4. a mail whose subject is 20,000 × `«`, through the built-in `mail` preset
 *
 * Environment: WRAP_ATTACK_CAP_S (default 600) — give up on an attack (and kill the gateway)
 * after that many seconds; the row then says so. WRAP_ATTACK_ONLY=1,3 runs only those attacks.
 * Exit code 0 always (this measures).
 */
const path = require("node:path");
const fs = require("node:fs");
const http = require("node:http");
const { createJiti } = require("jiti");

const ROOT = path.resolve(__dirname, "..");
const TOKEN = "bench-hook-token-0123456789abcdef";
const CAP_S = Number(process.env.WRAP_ATTACK_CAP_S ?? 600);
const { startGateway } = createJiti(__filename)(path.join(ROOT, "test/helpers/gateway-process.ts"));

const CONFIG = {
  hooks: {
    enabled: true,
    token: TOKEN,
    rateLimit: { enabled: false },
    presets: ["mail"],
    mappings: [
      {
        id: "github-issues",
        match: { path: "github" },
        action: "agent",
        name: "GitHub",
        messageTemplate: "New issue {{ issue.title }}:\n{{ issue.body }}",
        deliver: false,
      },
    ],
  },
  agents: { runner: { kind: "echo" }, defaults: { heartbeat: { every: "off" } } },
};

const ATTACKS = [
  { label: "/wake, 255,000 × '<'", path: "/hooks/wake", body: { text: "<".repeat(255000), mode: "next-heartbeat" } },
  { label: "/wake, 56,000 × '<'", path: "/hooks/wake", body: { text: "<".repeat(56000), mode: "next-heartbeat" } },
  {
    label: "mapped GitHub issue body, 24,000 × '«'",
    path: "/hooks/github",
    body: { action: "opened", issue: { number: 7, title: "Crash on start", body: "\u00AB".repeat(24000) }, repository: { full_name: "octo/app" } },
  },
  {
    label: "mail preset subject, 20,000 × '«'",
    path: "/hooks/mail",
    body: { source: "mail", messages: [{ id: "<m1@example.org>", from: "a@example.org", subject: "\u00AB".repeat(20000), snippet: "hi" }] },
  },
];

/** POSTs JSON with node:http (no client-side timeout, unlike fetch's 300 s headers timeout); resolves with the status. */
function post(url, body) {
  const data = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "content-length": data.length } },
      (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      },
    );
    req.on("error", reject);
    req.end(data);
  });
}

/** Polls /healthz every 10 ms until stopped; resolves with the slowest answer in ms. */
function pollHealth(baseUrl) {
  let stop = false;
  let worst = 0;
  const done = (async () => {
    while (!stop) {
      const t0 = performance.now();
      try {
        await fetch(`${baseUrl}/healthz`);
      } catch {
        /* the gateway may be killed at the cap */
      }
      worst = Math.max(worst, performance.now() - t0);
      await new Promise((r) => setTimeout(r, 10));
    }
    return worst;
  })();
  return { stop: () => ((stop = true), done) };
}

async function attack(gw, a) {
  const health = pollHealth(gw.baseUrl);
  await new Promise((r) => setTimeout(r, 50));
  const t0 = performance.now();
  const capped = new Promise((resolve) => setTimeout(() => resolve("cap"), CAP_S * 1000).unref());
  const outcome = await Promise.race([post(gw.baseUrl + a.path, a.body), capped]);
  const ms = performance.now() - t0;
  if (outcome === "cap") {
    await gw.kill9();
    await health.stop();
    return { attack: a.label, status: "gave up", "POST ms": `> ${CAP_S * 1000}`, "worst /healthz ms": `> ${CAP_S * 1000}`, killed: true };
  }
  const worst = await health.stop();
  return { attack: a.label, status: outcome, "POST ms": ms.toFixed(1), "worst /healthz ms": worst.toFixed(1) };
}

async function main() {
  const rows = [];
  let gw = await startGateway({ config: CONFIG });
  try {
    const only = process.env.WRAP_ATTACK_ONLY?.split(",").map(Number);
    for (const [i, a] of ATTACKS.entries()) {
      if (only && !only.includes(i + 1)) continue;
      const row = await attack(gw, a);
      rows.push(row);
      if (row.killed) {
        delete row.killed;
        fs.rmSync(gw.dir, { recursive: true, force: true });
        gw = await startGateway({ config: CONFIG });
      }
    }
  } finally {
    await gw.stop("SIGTERM");
    fs.rmSync(gw.dir, { recursive: true, force: true });
  }
  console.log(`marker-neutralisation attacks against the real gateway (node ${process.version})`);
  console.table(rows);
}

main().catch((e) => {
  console.error(e instanceof Error ? e.stack : e);
  process.exit(1);
});
