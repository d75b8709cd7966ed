/**
 * The live feed over a real socket: `text/event-stream`, a `retry:` line, then
 * one `id/event/data` block per new delivery that passes the page's filters;
 * the subscription ends when the client goes away or the dashboard closes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { until } from "../helpers/until";
import { createFakeInspector, delivery } from "../helpers/fake-inspector";
import { OPERATOR_TOKEN, uiApp } from "../helpers/ui-app";

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  text(): string;
  close(): void;
  ended(): boolean;
}

interface PausedStream extends Stream {
  /** Starts reading (until then the socket is not read: the server's writes back up). */
  resume(): void;
  /** True once the socket closed (seen only while reading). */
  closed(): boolean;
}

async function withServer(
  ui: ReturnType<typeof uiApp>,
  fn: (open: (path: string) => Promise<Stream>, openPaused: (path: string) => Promise<PausedStream>) => Promise<void>,
) {
  const server = http.createServer(ui.app);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  const open = (path: string) =>
    new Promise<Stream>((resolve, reject) => {
      const req = http.get({ port, host: "127.0.0.1", path, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } }, (res) => {
        let text = "";
        let done = false;
        res.setEncoding("utf8");
        res.on("data", (c: string) => (text += c));
        res.on("end", () => (done = true));
        resolve({ status: res.statusCode!, headers: res.headers, text: () => text, close: () => req.destroy(), ended: () => done });
      });
      req.on("error", reject);
    });
  const openPaused = (path: string) =>
    new Promise<PausedStream>((resolve, reject) => {
      const req = http.get({ port, host: "127.0.0.1", path, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } }, (res) => {
        let text = "";
        let done = false;
        let closed = false;
        // The socket itself stops being read; the response is read only from resume() on (a 'data'
        // listener on the response starts reading the socket again).
        res.socket.pause();
        res.setEncoding("utf8");
        res.socket.on("close", () => (closed = true));
        const resume = () => {
          res.on("data", (c: string) => (text += c));
          res.on("end", () => (done = true));
          // A stream the server cut mid-event ends as an aborted response.
          res.on("error", () => undefined);
          res.socket.resume();
        };
        resolve({
          status: res.statusCode!,
          headers: res.headers,
          text: () => text,
          close: () => req.destroy(),
          ended: () => done,
          closed: () => closed,
          resume,
        });
      });
      req.on("error", reject);
    });
  try {
    await fn(open, openPaused);
  } finally {
    ui.dashboard.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

describe("/ui/api/events (Server-Sent Events)", () => {
  it("sends each new delivery as one id/event/data block with the row as JSON", async () => {
    const ui = uiApp({
      inspector: createFakeInspector({ runs: [{ id: "r-9", status: "queued", name: "github", sessionKey: "hook:gh", createdAt: "2026-11-22T10:00:00.000Z" }] }),
    });
    await withServer(ui, async (open) => {
      const s = await open("/ui/api/events");
      expect(s.status).toBe(200);
      expect(s.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      expect(s.headers["cache-control"]).toBe("no-store");
      await until(() => ui.inspector.listeners() === 1, "the feed to subscribe");
      ui.inspector.emit(delivery({ id: "d-7", receivedAt: "2026-11-22T10:01:02.345Z", runIds: ["r-9"], latencyMs: 12.4 }));
      await until(() => s.text().includes("event: delivery") && s.text().endsWith("\n\n"), "the delivery event");
      const row = {
        id: "d-7",
        href: "/ui/deliveries/d-7",
        receivedAt: "2026-11-22T10:01:02.345Z",
        time: "2026-11-22 10:01:02 UTC",
        hook: "github",
        event: "",
        mapping: "gh",
        status: 202,
        statusClass: "s2xx",
        code: "",
        latency: "12 ms",
        badges: [],
        runStatus: "queued",
      };
      expect(s.text()).toBe(`retry: 3000\n\nid: d-7\nevent: delivery\ndata: ${JSON.stringify(row)}\n\n`);
      s.close();
      await until(() => ui.inspector.listeners() === 0, "the feed to unsubscribe when the client leaves");
    });
  });

  it("a run that starts or finishes sends its delivery's row again as an `event: run` block; rows outside the filters are left out", async () => {
    const run = { id: "r-9", status: "queued" as const, name: "github", sessionKey: "hook:gh", createdAt: "2026-11-22T10:00:00.000Z" };
    const ui = uiApp({
      inspector: createFakeInspector({
        deliveries: [delivery({ id: "d-7", runIds: ["r-9"] }), delivery({ id: "d-8", hook: "stripe", runIds: ["r-8"] })],
        runs: [run],
      }),
    });
    await withServer(ui, async (open) => {
      const s = await open("/ui/api/events?hook=github");
      await until(() => ui.inspector.listeners() === 1 && ui.inspector.runListeners() === 1, "the feed to subscribe to deliveries and runs");
      ui.inspector.emitRun({ id: "r-8", status: "running", name: "stripe", sessionKey: "hook:st", createdAt: run.createdAt, deliveryId: "d-8" });
      ui.inspector.emitRun({ ...run, status: "succeeded", deliveryId: "d-7" });
      await until(() => s.text().includes("event: run") && s.text().endsWith("\n\n"), "the run event");
      const row = {
        id: "d-7",
        href: "/ui/deliveries/d-7",
        receivedAt: "2026-11-22T10:00:00.000Z",
        time: "2026-11-22 10:00:00 UTC",
        hook: "github",
        event: "",
        mapping: "gh",
        status: 202,
        statusClass: "s2xx",
        code: "",
        latency: "3 ms",
        badges: [],
        runStatus: "succeeded",
      };
      expect(s.text()).toBe(`retry: 3000\n\nevent: run\ndata: ${JSON.stringify(row)}\n\n`);
      s.close();
      await until(() => ui.inspector.listeners() === 0 && ui.inspector.runListeners() === 0, "both subscriptions to end when the client leaves");
    });
  });

  it("leaves out deliveries that do not pass the hook and status filters", async () => {
    const ui = uiApp();
    await withServer(ui, async (open) => {
      const s = await open("/ui/api/events?hook=github&status=4xx");
      await until(() => ui.inspector.listeners() === 1, "the feed to subscribe");
      ui.inspector.emit(delivery({ id: "other-hook", hook: "stripe", status: 404 }));
      ui.inspector.emit(delivery({ id: "other-status", status: 202 }));
      ui.inspector.emit(delivery({ id: "match", status: 401, code: "unauthorized" }));
      await until(() => s.text().includes("id: match"), "the matching delivery");
      expect(s.text()).not.toContain("other-hook");
      expect(s.text()).not.toContain("other-status");
    });
  });

  it("a bad filter is refused (400 invalid_filter) before any stream opens", async () => {
    const ui = uiApp();
    await withServer(ui, async (open) => {
      const s = await open("/ui/api/events?status=4x");
      expect(s.status).toBe(400);
      await until(() => s.ended(), "the answer to end");
      expect(JSON.parse(s.text())).toEqual({ ok: false, code: "invalid_filter", error: "status must be an HTTP status (404) or a class (4xx)." });
      expect(ui.inspector.listeners()).toBe(0);
    });
  });

  it("close() ends every open stream (the gateway's stop is not held up)", async () => {
    const ui = uiApp();
    await withServer(ui, async (open) => {
      const a = await open("/ui/api/events");
      const b = await open("/ui/api/events");
      await until(() => ui.inspector.listeners() === 2, "two subscriptions");
      ui.dashboard.close();
      await until(() => a.ended() && b.ended(), "both streams to end");
      expect(ui.inspector.listeners()).toBe(0);
    });
  });

  it("a client that stops reading is not buffered for: events are dropped and counted, and one `gap` event says how many once it reads again (regression: 50 stalled feeds grew the gateway by 691 MB)", async () => {
    const ui = uiApp();
    await withServer(ui, async (_open, openPaused) => {
      const s = await openPaused("/ui/api/events");
      await until(() => ui.inspector.listeners() === 1, "the feed to subscribe");
      // ~400 bytes each: 8 MB, more than the loopback socket buffers hold.
      const total = 20_000;
      for (let i = 0; i < total; i++) ui.inspector.emit(delivery({ id: `d-${i}` }));
      s.resume();
      await until(() => /event: gap\ndata: \{"missed":\d+\}\n\n/.test(s.text()), "the gap event once the client reads again", { timeoutMs: 10_000 });
      const missed = Number(/event: gap\ndata: \{"missed":(\d+)\}/.exec(s.text())![1]);
      const delivered = s.text().match(/^event: delivery$/gm)!.length;
      expect(missed).toBeGreaterThan(0);
      expect(delivered + missed).toBe(total);
      // Nothing is queued for the client beyond one socket buffer: what it got is the oldest events, in order.
      expect(s.text().indexOf("id: d-0\n")).toBeGreaterThan(0);
      expect(s.text()).not.toContain(`id: d-${total - 1}\n`);
      s.close();
    });
  });

  it("a client that took nothing over two keep-alive periods is disconnected and unsubscribed; a client that reads is kept and gets every event", async () => {
    const ui = uiApp({ keepAliveMs: 50 });
    await withServer(ui, async (open, openPaused) => {
      const reader = await open("/ui/api/events");
      const stalled = await openPaused("/ui/api/events");
      await until(() => ui.inspector.listeners() === 2, "both feeds to subscribe");
      // Traffic goes on until the kernel's socket buffers (a few MB) are full too: 10 deliveries of ~6 KB per 20 ms, bounded.
      const hook = "h".repeat(6000);
      let sent = 0;
      for (let batch = 0; ui.inspector.listeners() === 2 && batch < 1000; batch++) {
        for (let i = 0; i < 10; i++) ui.inspector.emit(delivery({ id: `d-${sent++}`, hook }));
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(ui.inspector.listeners()).toBe(1);
      // Once it reads again it finds the end of its connection (after what its socket buffers held).
      stalled.resume();
      await until(() => stalled.closed(), "the stalled client's socket to close", { timeoutMs: 10_000 });
      // The feed that reads is kept and gets every event.
      await until(() => reader.text().includes(`id: d-${sent - 1}\n`), "the reading client to get the last event", { timeoutMs: 20_000 });
      expect(reader.ended()).toBe(false);
      expect(reader.text().match(/^event: delivery$/gm)!.length).toBe(sent);
      reader.close();
    });
  });
});
