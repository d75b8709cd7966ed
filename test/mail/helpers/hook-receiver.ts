/**
 * A small local HTTP receiver standing in for the gateway's `/hooks/mail`: it records
 * every post and answers like the gateway would — 202 once per Idempotency-Key, a
 * replay (same status, `Idempotent-Replayed: true`) for a repeat. It can be "down"
 * (port closed), answer 503 with Retry-After, or answer any status a test scripts.
 */
import { until } from "../../helpers/until";
import http from "node:http";
import type net from "node:net";

export interface ReceivedPost {
  headers: http.IncomingHttpHeaders;
  body: unknown;
  status: number;
  replayed: boolean;
}

export interface HookReceiver {
  readonly url: string;
  readonly port: number;
  /** Every post, in arrival order, with the status it got. */
  readonly posts: ReceivedPost[];
  /** Posts answered 2xx for the first time (one per Idempotency-Key). */
  accepted(): ReceivedPost[];
  /** Next answers: "ok" (default), or a status with optional Retry-After. */
  respondWith(mode: "ok" | { status: number; retryAfter?: string; body?: unknown }): void;
  /** Holds the next matching request until `release()` (to kill a client mid-request). */
  holdNext(): { received: Promise<void>; release: () => void };
  /** Closes the port (connections refused) / listens again on the same port. */
  down(): Promise<void>;
  up(): Promise<void>;
  waitFor(pred: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

export async function startHookReceiver(opts: { path?: string; token?: string } = {}): Promise<HookReceiver> {
  const path = opts.path ?? "/hooks/mail";
  const posts: ReceivedPost[] = [];
  const seen = new Map<string, number>();
  let mode: "ok" | { status: number; retryAfter?: string; body?: unknown } = "ok";
  let hold: { resolveReceived: () => void; released: Promise<void> } | undefined;
  const sockets = new Set<net.Socket>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
        res.end(JSON.stringify(payload));
      };
      const key = String(req.headers["idempotency-key"] ?? "");
      if (req.method !== "POST" || req.url !== path) {
        posts.push({ headers: req.headers, body, status: 404, replayed: false });
        return send(404, { ok: false, code: "not_found", error: "No hook matches this path." });
      }
      if (opts.token !== undefined && req.headers.authorization !== `Bearer ${opts.token}`) {
        posts.push({ headers: req.headers, body, status: 401, replayed: false });
        return send(401, { ok: false, code: "unauthorized", error: "A valid hook token is required." });
      }
      if (hold) {
        const h = hold;
        hold = undefined;
        h.resolveReceived();
        await h.released;
      }
      if (mode !== "ok") {
        posts.push({ headers: req.headers, body, status: mode.status, replayed: false });
        return send(mode.status, mode.body ?? { ok: false, code: "overloaded", error: "scripted" }, mode.retryAfter ? { "retry-after": mode.retryAfter } : {});
      }
      if (key && seen.has(key)) {
        posts.push({ headers: req.headers, body, status: 202, replayed: true });
        return send(202, { ok: true, runId: `run-${seen.get(key)}` }, { "idempotent-replayed": "true" });
      }
      const runNo = posts.filter((p) => p.status === 202 && !p.replayed).length + 1;
      if (key) seen.set(key, runNo);
      posts.push({ headers: req.headers, body, status: 202, replayed: false });
      send(202, { ok: true, runId: `run-${runNo}`, sessionKey: "hook:mail:test" });
    });
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });

  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => {
        server.off("error", reject);
        resolve((server.address() as net.AddressInfo).port);
      });
    });
  const port = await listen(0);
  const closeServer = (): Promise<void> =>
    new Promise((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });

  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    posts,
    accepted: () => posts.filter((p) => p.status >= 200 && p.status < 300 && !p.replayed),
    respondWith(m) {
      mode = m;
    },
    holdNext() {
      let resolveReceived!: () => void;
      let release!: () => void;
      const received = new Promise<void>((r) => (resolveReceived = r));
      const released = new Promise<void>((r) => (release = r));
      hold = { resolveReceived, released };
      return { received, release };
    },
    down: closeServer,
    async up() {
      await listen(port);
    },
    async waitFor(pred, what, timeoutMs = 20_000) {
      await until(pred, what, { timeoutMs, detail: () => `posts so far: ${JSON.stringify(posts.map((p) => ({ status: p.status, replayed: p.replayed })))}` });
    },
    async close() {
      if (server.listening) await closeServer();
    },
  };
}
