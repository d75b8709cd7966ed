"use strict";
/**
 * The bench's gateway-only scenarios: p99 with a backlog, RSS over rejected huge
 * bodies, the longest stall under adversarial bodies, and runs/s as the backlog grows.
 */
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const { randomUUID } = require("node:crypto");
const { TOKEN, AUTH, AGENT_BODY, WAKE_BODY, launchGateway, stopGateway, cannon, summary } = require("./targets");

/** Resident set size of a process in MB (Linux /proc). */
function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) / 1024 : NaN;
}

/** p99 of `/agent` accepts with an (almost) empty queue vs with `backlog` runs queued (runs held by a long echo delay). */
async function p99WithBacklog({ backlog, sample, connections, durability }) {
  const gw = await launchGateway({ durability });
  try {
    // Warm-up without queueing runs: wakes, and /agent requests refused (the main session is not a run's session).
    await cannon({ url: `${gw.baseUrl}/hooks/wake`, body: WAKE_BODY, headers: AUTH, connections, duration: 1 });
    await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: '{"message":"x","sessionKey":"main"}', headers: AUTH, connections, duration: 1 });
    const empty = summary(await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: AGENT_BODY, headers: AUTH, connections, amount: sample }));
    const fill = backlog - sample;
    if (fill > 0) await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: AGENT_BODY, headers: AUTH, connections, amount: fill });
    const full = summary(await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: AGENT_BODY, headers: AUTH, connections, amount: sample }));
    return { empty, full };
  } finally {
    await stopGateway(gw);
  }
}

/** Streams one `bytes`-long body (declared length) in 64 KiB chunks until the gateway answers or closes. */
function streamHugeBody(url, bytes) {
  const chunk = Buffer.alloc(64 * 1024, 0x61);
  return new Promise((resolve) => {
    const req = http.request(url, { method: "POST", headers: { ...AUTH, "content-length": bytes } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
      res.on("error", () => resolve(res.statusCode));
    });
    req.on("error", () => resolve("reset"));
    let sent = 0;
    const pump = () => {
      while (sent < bytes) {
        sent += chunk.length;
        if (!req.write(sent > bytes ? chunk.subarray(0, bytes - (sent - chunk.length)) : chunk)) return void req.once("drain", pump);
      }
      req.end();
    };
    pump();
  });
}

/** RSS of the gateway before and after `count` rejected `mb` MB bodies (`parallel` at once). */
async function rssOverHugeBodies({ count, mb, parallel }) {
  const gw = await launchGateway({});
  try {
    await cannon({ url: `${gw.baseUrl}/hooks/wake`, body: WAKE_BODY, headers: AUTH, connections: 4, duration: 1 });
    const before = rssMb(gw.child.pid);
    let peak = before;
    const statuses = {};
    let next = 0;
    const worker = async () => {
      while (next < count) {
        next++;
        const s = await streamHugeBody(`${gw.baseUrl}/hooks/wake`, mb * 1024 * 1024);
        statuses[s] = (statuses[s] ?? 0) + 1;
        peak = Math.max(peak, rssMb(gw.child.pid));
      }
    };
    await Promise.all(Array.from({ length: parallel }, worker));
    return { before, after: rssMb(gw.child.pid), peak, statuses };
  } finally {
    await stopGateway(gw);
  }
}

const ADVERSARIAL = [
  { label: "/wake 255,000 × '<'", path: "wake", body: { text: "<".repeat(255000), mode: "next-heartbeat" } },
  { label: "/wake 127,000 × '«' (2-byte)", path: "wake", body: { text: "\u00AB".repeat(127000), mode: "next-heartbeat" } },
  {
    label: "/wake 4,000 × full-width marker look-alike",
    path: "wake",
    body: { text: "<<<ＥＸＴＥＲＮＡＬ_UNTRUSTED_CONTENT>>> ".repeat(4000), mode: "next-heartbeat" },
  },
  { label: "/agent 84,000 × 'ǀ' homoglyph", path: "agent", body: { message: "\u01C0".repeat(84000), deliver: false } },
  { label: "/agent 120,000-deep nesting", path: "agent", raw: `{"message":"x","deliver":false,"n":${"[".repeat(120000)}${"]".repeat(120000)}}` },
  { label: "/wake 15,000 keys", path: "wake", raw: `{"text":"x",${Array.from({ length: 15000 }, (_, i) => `"k${i}":${i}`).join(",")}}` },
  {
    label: "/github template, 80,000 × '«'",
    path: "github",
    body: { ref: "r", repository: { full_name: "o/a" }, pusher: { name: "p" }, head_commit: { message: "\u00AB".repeat(80000) } },
  },
  // Issue 22 item 7: 100 items × {{ payload | json }} of 250 KB rendered 25 MB and 100 runs; now stopped at hooks.maxRenderedBytes.
  {
    label: "fan-out of payload | json, 100 items × 250 KB",
    path: "amp",
    body: { events: Array.from({ length: 100 }, (_, i) => ({ i })), pad: "x".repeat(250000) },
  },
];
/** The mapping the fan-out body goes to (added to the stall gateway's config only). */
const AMPLIFYING = {
  mappings: [
    { id: "amp", match: { path: "amp" }, action: "agent", forEach: "events", messageTemplate: "event {{ index }}: {{ payload | json }}", deliver: false },
  ],
};

/**
 * Bodies that were slow to refuse only above the default limits: `hooks.maxBodyBytes`
 * raised to 8 MiB (issue 22 item 4: busboy got the whole body in one call and raised an
 * error per malformed part — 4 MiB of header-less parts held /healthz 4.8 s).
 */
const MIB = 1024 * 1024;
const MULTIPART = "multipart/form-data; boundary=b";
const RAISED_LIMITS = {
  maxBodyBytes: 8 * MIB,
  mappings: [...AMPLIFYING.mappings, { id: "form", match: { path: "form" }, action: "wake", textTemplate: "form {{ payload.subject }}" }],
};
const ADVERSARIAL_RAISED = [
  { label: "multipart 4 MiB of header-less parts", path: "form", contentType: MULTIPART, raw: "--b\r\nnot a header\r\n".repeat(Math.ceil((4 * MIB) / 19)) },
  {
    label: "multipart 4 MiB, 1,000 header-less parts of 4 KiB",
    path: "form",
    contentType: MULTIPART,
    raw: `--b\r\nnot a header${" ".repeat(4096)}\r\n`.repeat(1000),
  },
  {
    label: "multipart 4 MiB, first part malformed",
    path: "form",
    contentType: MULTIPART,
    raw: `--b\r\nnot a header\r\n--b\r\nContent-Disposition: form-data; name="pad"\r\n\r\n${"x".repeat(4 * MIB)}\r\n--b--\r\n`,
  },
];

function postRaw(url, data, contentType) {
  return new Promise((resolve) => {
    const headers = { ...AUTH, "content-length": Buffer.byteLength(data), ...(contentType ? { "content-type": contentType } : {}) };
    const req = http.request(url, { method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode));
    });
    req.on("error", () => resolve("error"));
    req.end(data);
  });
}

/**
 * The longest event-loop stall under adversarial bodies, seen from outside: `GET /healthz`
 * is probed every 5 ms on its own connection while each body is posted (one at a time,
 * `repeat` times); the slowest probe answer bounds the longest stall from above.
 */
async function stallUnderAdversarialBodies({ repeat, bodies = ADVERSARIAL, hooks = AMPLIFYING }) {
  const gw = await launchGateway(hooks ? { hooks } : {});
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const probeOnce = () =>
    new Promise((resolve) => {
      const t = process.hrtime.bigint();
      http
        .get(`${gw.baseUrl}/healthz`, { agent }, (res) => {
          res.resume();
          res.on("end", () => resolve({ ms: Number(process.hrtime.bigint() - t) / 1e6, failed: false }));
        })
        .on("error", () => resolve({ ms: Number(process.hrtime.bigint() - t) / 1e6, failed: true }));
    });
  const rows = [];
  try {
    await probeOnce();
    for (const a of bodies) {
      const data = a.raw ?? JSON.stringify(a.body);
      let worst = 0;
      let failed = 0;
      let running = true;
      const probing = (async () => {
        while (running) {
          // A probe that fails (its connection dropped during a stall) still bounds the stall by its time.
          const probe = await probeOnce();
          if (probe.failed) failed++;
          worst = Math.max(worst, probe.ms);
          await new Promise((r) => setTimeout(r, 5));
        }
      })();
      const statuses = [];
      for (let i = 0; i < repeat; i++) statuses.push(await postRaw(`${gw.baseUrl}/hooks/${a.path}`, data, a.contentType));
      running = false;
      await probing;
      rows.push({
        body: a.label,
        KiB: Math.round(Buffer.byteLength(data) / 1024),
        status: [...new Set(statuses)].join("/"),
        "slowest probe ms": Math.round(worst * 10) / 10,
        "failed probes": failed,
      });
    }
  } finally {
    agent.destroy();
    await stopGateway(gw);
  }
  return rows;
}

/** Runs finished per second over the journal's agent turns [from, to) of hook sessions, by their timestamps. */
function rate(turns, from, to) {
  const a = Date.parse(turns[from].ts);
  const b = Date.parse(turns[to - 1].ts);
  return ((to - from - 1) / Math.max(1, b - a)) * 1000;
}

/**
 * Runs/s as the backlog grows: `total` runs are accepted while runs are held (long echo
 * delay), the gateway is killed (-9: accepted runs are durable), and restarted on the same
 * state with a 0 ms runner; the runs then execute with no accepts competing. Compares the
 * rate of the first `window` runs with the last `window`.
 */
async function runsPerSecond({ total, window, connections }) {
  const gw = await launchGateway({});
  await cannon({ url: `${gw.baseUrl}/hooks/agent`, body: AGENT_BODY, headers: AUTH, connections, amount: total });
  await stopGateway(gw, { keep: true });
  const again = await launchGateway({ dir: gw.dir, delayMs: 0 });
  // journal.1.jsonl too: the journal may have been rotated at gateway.journal.maxBytes.
  const journalFiles = ["journal.1.jsonl", "journal.jsonl"].map((name) => path.join(again.stateDir, name));
  const deadline = Date.now() + 15 * 60 * 1000;
  let turns = [];
  try {
    while (Date.now() < deadline) {
      turns = journalFiles
        .flatMap((f) => (fs.existsSync(f) ? fs.readFileSync(f, "utf8").split("\n") : []))
        .filter((l) => l.includes('"agent_turn"') && l.includes('"sessionKey":"hook:'))
        .map((l) => JSON.parse(l));
      if (turns.length >= total - 8) break;
      await new Promise((r) => setTimeout(r, 500));
    }
  } finally {
    await stopGateway(again);
  }
  const n = turns.length;
  return { finished: n, first: rate(turns, 0, Math.min(window, n)), last: rate(turns, Math.max(0, n - window), n) };
}

/** The same probe with `hooks.maxBodyBytes` raised to 8 MiB, for the bodies only such a limit lets in. */
function stallUnderRaisedLimits({ repeat }) {
  return stallUnderAdversarialBodies({ repeat, bodies: ADVERSARIAL_RAISED, hooks: RAISED_LIMITS });
}

module.exports = { p99WithBacklog, rssOverHugeBodies, stallUnderAdversarialBodies, stallUnderRaisedLimits, runsPerSecond, randomUUID, TOKEN };
