"use strict";
/**
 * Baseline servers for `npm run bench`, run as a child process like the gateway:
 * `node bench/baseline-server.js wake|agent|wake-ledger|agent-ledger <stateDir> [process|os]` prints `listening: <url>`.
 *
 * Each does the same durable work as the gateway's accept path, written plainly
 * with node:http (no framework), so the ratio gateway ÷ baseline is what our
 * pipeline costs on top of the work itself:
 *   bearer token check (constant time) → bounded body read (256 KiB, 413 beyond)
 *   → JSON.parse → required-field check → the content wrapped between random-id
 *   markers after one linear look-alike scan → the durable write → the reply.
 * - wake:  appends one JSON line to a file kept open (`fs.writeSync`), then 200.
 *          "os": one `fdatasync` per request after the write.
 * - agent: INSERTs one row with better-sqlite3 (WAL; `synchronous=NORMAL`, or FULL for "os"),
 *          one autocommitted statement per request, then 202 with the run id.
 * - wake-ledger, agent-ledger: that baseline plus, after the reply, the row SPEC §11 asks for on every
 *          delivery, written by the product's own ledger (the built dist/store, its default
 *          options: headers redacted, body kept, group commit, pruning at 10,000 rows). Not a
 *          baseline of a ratio: the ceiling of any build that keeps the ledger row
 *          (docs/performance.md).
 */
const crypto = require("node:crypto");
const fs = require("node:fs");
const http = require("node:http");
const path = require("node:path");
const Database = require("better-sqlite3");

const [kind = "wake", stateDir, durability = "process"] = process.argv.slice(2);
const TOKEN = process.env.BENCH_TOKEN ?? "bench-hook-token-0123456789abcdef";
const LIMIT = 256 * 1024;
const tokenHash = crypto.createHash("sha256").update(TOKEN).digest();
fs.mkdirSync(stateDir, { recursive: true });

function authorised(req) {
  const h = req.headers.authorization;
  if (typeof h !== "string" || !h.startsWith("Bearer ")) return false;
  return crypto.timingSafeEqual(crypto.createHash("sha256").update(h.slice(7).trim()).digest(), tokenHash);
}

function send(res, status, body) {
  const data = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

/** One linear pass: marker look-alikes ("<<<" runs and the marker words, any case) replaced, then framed. */
function wrap(text) {
  const lower = text.toLowerCase();
  let out = text;
  if (lower.includes("<<<") || lower.includes("external_untrusted_content")) {
    out = text.replace(/<<</g, "[[marker removed]]").replace(/external_untrusted_content/gi, "[[marker removed]]");
  }
  const id = crypto.randomBytes(16).toString("hex");
  return `SECURITY NOTICE: untrusted.\n<<<EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>\nSource: webhook "bench"\n---\n${out}\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${id}">>>`;
}

function readJson(req, res, then) {
  const receivedAt = Date.now();
  const chunks = [];
  let size = 0;
  let refused = false;
  req.on("data", (c) => {
    if (refused) return;
    size += c.length;
    if (size > LIMIT) {
      refused = true;
      res.setHeader("connection", "close");
      send(res, 413, { ok: false, code: "payload_too_large" });
      req.resume();
      return;
    }
    chunks.push(c);
  });
  req.on("end", () => {
    if (refused) return;
    const raw = Buffer.concat(chunks);
    let body;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      send(res, 400, { ok: false, code: "invalid_json" });
      return;
    }
    then(body, raw, receivedAt);
  });
}

function handler(field, store, after) {
  return (req, res) => {
    if (req.method !== "POST") return send(res, 405, { ok: false });
    if (!authorised(req)) {
      req.resume();
      return send(res, 401, { ok: false, code: "unauthorized" });
    }
    readJson(req, res, (body, raw, receivedAt) => {
      const text = body && typeof body === "object" ? body[field] : undefined;
      if (typeof text !== "string" || text.trim() === "") return send(res, 400, { ok: false, code: "invalid_payload" });
      const reply = store(wrap(text));
      send(res, reply.status, reply.body);
      after?.(req, raw, reply, receivedAt);
    });
  };
}

function wakeStore() {
  const fd = fs.openSync(path.join(stateDir, "wake.jsonl"), "a");
  return (text) => {
    fs.writeSync(fd, `${JSON.stringify({ ts: new Date().toISOString(), type: "system_event", text })}\n`);
    if (durability === "os") fs.fdatasyncSync(fd);
    return { status: 200, body: { ok: true, mode: "next-heartbeat" } };
  };
}

function agentStore() {
  const db = new Database(path.join(stateDir, "runs.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${durability === "os" ? "FULL" : "NORMAL"}`);
  db.exec("CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, seq INTEGER, status TEXT, action TEXT, created_at TEXT)");
  const insert = db.prepare("INSERT INTO runs (id, seq, status, action, created_at) VALUES (?, ?, 'queued', ?, ?)");
  let seq = 0;
  return (message) => {
    const id = crypto.randomUUID();
    const sessionKey = `hook:${crypto.randomUUID()}`;
    insert.run(id, ++seq, JSON.stringify({ message, sessionKey, name: "Hook" }), new Date().toISOString());
    return { status: 202, body: { ok: true, runId: id, sessionKey } };
  };
}

/** The product's ledger (built dist/store) with its default options: one row per delivery, after the reply. */
function ledgerRow(hook) {
  const dist = path.join(__dirname, "..", "dist");
  const { openPluginDatabase } = require(path.join(dist, "store", "database.js"));
  const { createLedgerStore } = require(path.join(dist, "store", "ledger-store.js"));
  const { redactHeaders, secretValues } = require(path.join(dist, "host-contract", "redaction.js"));
  const logger = { debug() {}, info() {}, warn() {}, error: (message) => process.stderr.write(`${message}\n`) };
  const ledger = createLedgerStore(openPluginDatabase({ dir: stateDir, logger }), { logger, storeBodies: true, retentionDays: 7, maxEntries: 10000 });
  const secrets = secretValues([TOKEN]);
  const hidden = new Set();
  let n = 0;
  return (req, raw, reply, receivedAt) =>
    ledger.record({
      id: `d_${receivedAt.toString(36)}_${(n++).toString(36)}`,
      receivedAt,
      method: req.method,
      url: req.url,
      hook,
      client: req.socket.remoteAddress ?? "",
      status: reply.status,
      latencyMs: Date.now() - receivedAt,
      runIds: [],
      headers: redactHeaders(req.headers, hidden, secrets),
      body: raw,
      response: reply.body,
    });
}

const SERVERS = {
  wake: () => handler("text", wakeStore()),
  agent: () => handler("message", agentStore()),
  "wake-ledger": () => handler("text", wakeStore(), ledgerRow("wake")),
  "agent-ledger": () => handler("message", agentStore(), ledgerRow("agent")),
};
const server = http.createServer(SERVERS[kind]());
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening: http://127.0.0.1:${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
