/**
 * The live feed over a real socket: `text/event-stream`, a `retry:` line, then
 * one `id/event/data` block per new delivery that passes the page's filters;
 * the subscription ends when the client goes away or the dashboard closes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { until } from "../../helpers/until";
import { createFakeInspector, delivery } from "../../helpers/fake-inspector";
import { OPERATOR_TOKEN, uiApp } from "./ui-app";

interface Stream {
  status: number;
  headers: http.IncomingHttpHeaders;
  text(): string;
  close(): void;
  ended(): boolean;
}

async function withServer(ui: ReturnType<typeof uiApp>, fn: (open: (path: string) => Promise<Stream>) => Promise<void>) {
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
  try {
    await fn(open);
  } finally {
    ui.dashboard.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
}

describe("/ui/api/events (Server-Sent Events)", () => {
  it("sends each new delivery as one id/event/data block with the row as JSON", async () => {
    const ui = uiApp({ inspector: createFakeInspector({ runs: [{ id: "r-9", status: "queued", name: "github", sessionKey: "hook:gh", createdAt: "2026-11-22T10:00:00.000Z" }] }) });
    await withServer(ui, async (open) => {
      const s = await open("/ui/api/events");
      expect(s.status).toBe(200);
      expect(s.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
      expect(s.headers["cache-control"]).toBe("no-store");
      await until(() => ui.inspector.listeners() === 1, "the feed to subscribe");
      ui.inspector.emit(delivery({ id: "d-7", receivedAt: "2026-11-22T10:01:02.345Z", runIds: ["r-9"], latencyMs: 12.4 }));
      await until(() => s.text().includes("event: delivery") && s.text().endsWith("\n\n"), "the delivery event");
      const row = { id: "d-7", href: "/ui/deliveries/d-7", receivedAt: "2026-11-22T10:01:02.345Z", time: "2026-11-22 10:01:02", hook: "github", mapping: "gh", status: 202, statusClass: "s2xx", code: "", latency: "12 ms", runStatus: "queued" };
      expect(s.text()).toBe(`retry: 3000\n\nid: d-7\nevent: delivery\ndata: ${JSON.stringify(row)}\n\n`);
      s.close();
      await until(() => ui.inspector.listeners() === 0, "the feed to unsubscribe when the client leaves");
    });
  });

  it("a run that starts or finishes sends its delivery's row again as an `event: run` block; rows outside the filters are left out", async () => {
    const run = { id: "r-9", status: "queued", name: "github", sessionKey: "hook:gh", createdAt: "2026-11-22T10:00:00.000Z" };
    const ui = uiApp({ inspector: createFakeInspector({ deliveries: [delivery({ id: "d-7", runIds: ["r-9"] }), delivery({ id: "d-8", hook: "stripe", runIds: ["r-8"] })], runs: [run] }) });
    await withServer(ui, async (open) => {
      const s = await open("/ui/api/events?hook=github");
      await until(() => ui.inspector.listeners() === 1 && ui.inspector.runListeners() === 1, "the feed to subscribe to deliveries and runs");
      ui.inspector.emitRun({ id: "r-8", status: "running", name: "stripe", sessionKey: "hook:st", createdAt: run.createdAt, deliveryId: "d-8" });
      ui.inspector.emitRun({ ...run, status: "succeeded", deliveryId: "d-7" });
      await until(() => s.text().includes("event: run") && s.text().endsWith("\n\n"), "the run event");
      const row = { id: "d-7", href: "/ui/deliveries/d-7", receivedAt: "2026-11-22T10:00:00.000Z", time: "2026-11-22 10:00:00", hook: "github", mapping: "gh", status: 202, statusClass: "s2xx", code: "", latency: "3 ms", runStatus: "succeeded" };
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
      expect(JSON.parse(s.text())).toEqual({ ok: false, code: "invalid_filter", error: "status must be a code like 404 or a class like 4xx." });
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
});
