"use strict";
/**
 * Baseline servers for `npm run bench`, run as a child process like the gateway:
 * `node bench/baseline-server.js wake|agent <stateDir> [process|os]` prints `listening: <url>`.
 *
 * Each does the same durable work as the gateway's accept path, written plainly with node:http
 * (no framework, nothing from dist/), and stores every delivery once (issue 36, SPEC §14), so the
 * ratio gateway ÷ baseline is what our pipeline costs on top of the work itself:
 *   bearer token check (constant time) → bounded body read (256 KiB, 413 beyond)
 *   → JSON.parse → required-field check → the content wrapped between random-id
 *   markers after one linear look-alike scan → the durable write → the reply.
 * The durable write: the request's row (headers without the credential, body, the wrapped text) INSERTed
 * with better-sqlite3 into a WAL file (`synchronous=NORMAL`, or FULL for "os"); every request of one
 * event-loop turn in one transaction (BEGIN … COMMIT once the turn's requests are read), each answered
 * after that commit:
 * - wake:  that row, then 200;
 * - agent: that row and the run row in the same transaction, then 202 with the run id.
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

function handler(field, store) {
  return (req, res) => {
    if (req.method !== "POST") return send(res, 405, { ok: false });
    if (!authorised(req)) {
      req.resume();
      return send(res, 401, { ok: false, code: "unauthorized" });
    }
    readJson(req, res, (body, raw, receivedAt) => {
      const text = body && typeof body === "object" ? body[field] : undefined;
      if (typeof text !== "string" || text.trim() === "") return send(res, 400, { ok: false, code: "invalid_payload" });
      store(req, raw, wrap(text), receivedAt, (reply) => send(res, reply.status, reply.body));
    });
  };
}

function openStore() {
  const db = new Database(path.join(stateDir, "bench.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma(`synchronous = ${durability === "os" ? "FULL" : "NORMAL"}`);
  db.exec("CREATE TABLE IF NOT EXISTS deliveries (id INTEGER PRIMARY KEY, received_at INTEGER, hook TEXT, headers TEXT, body BLOB, text TEXT)");
  db.exec("CREATE TABLE IF NOT EXISTS runs (id TEXT PRIMARY KEY, delivery INTEGER, status TEXT, action TEXT, created_at TEXT)");
  return db;
}

/**
 * The turn's group commit: `stage(write, reply)` runs `write` inside the turn's transaction and sends
 * `reply()` after its COMMIT; the transaction runs once the I/O of this turn is read (setImmediate).
 */
function groupCommit(db) {
  const staged = [];
  const commit = db.transaction(() => {
    for (const s of staged) s.answer = s.write();
  });
  function flush() {
    try {
      commit();
      for (const s of staged) s.res(s.answer);
    } catch (e) {
      for (const s of staged) s.res({ status: 503, body: { ok: false, code: "storage_unavailable", error: e.message } });
    }
    staged.length = 0;
  }
  return (write, res) => {
    if (staged.length === 0) setImmediate(flush);
    staged.push({ write, res, answer: undefined });
  };
}

function storeOnce(kind) {
  const db = openStore();
  const stage = groupCommit(db);
  const delivery = db.prepare("INSERT INTO deliveries (received_at, hook, headers, body, text) VALUES (?, ?, ?, ?, ?)");
  const run = db.prepare("INSERT INTO runs (id, delivery, status, action, created_at) VALUES (?, ?, 'queued', ?, ?)");
  return (req, raw, text, receivedAt, reply) => {
    const headers = JSON.stringify({ ...req.headers, authorization: "[redacted]" });
    stage(() => {
      const row = delivery.run(receivedAt, kind, headers, raw, text).lastInsertRowid;
      if (kind === "wake") return { status: 200, body: { ok: true, mode: "next-heartbeat" } };
      const id = crypto.randomUUID();
      const sessionKey = `hook:${crypto.randomUUID()}`;
      run.run(id, row, JSON.stringify({ message: text, sessionKey, name: "Hook" }), new Date(receivedAt).toISOString());
      return { status: 202, body: { ok: true, runId: id, sessionKey } };
    }, reply);
  };
}

const SERVERS = {
  wake: () => handler("text", storeOnce("wake")),
  agent: () => handler("message", storeOnce("agent")),
};
const server = http.createServer(SERVERS[kind]());
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`listening: http://127.0.0.1:${server.address().port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
