/**
 * `POST {path}/wake` at the HTTP level (SPEC §4.3): field rules, the 200
 * body, what reaches the dispatcher, and (with the real dispatcher on the fake
 * host) the wrapped system event and the heartbeat.
 */
import request from "supertest";
import { createDispatcher } from "../../src/runs/dispatcher";
import { err, hookErrors } from "../../src/core/errors";
import { bearer, createRouterApp, type RouterApp } from "../helpers/router-app";

const validWake = (over: Record<string, unknown> = {}) => ({ text: "disk almost full", ...over });

describe("POST /hooks/wake: field rules and the 200 body", () => {
  let h: RouterApp;
  beforeEach(() => {
    h = createRouterApp({ idGen: () => "req-1" });
  });
  afterEach(() => h.close());

  const post = (body: unknown) =>
    request(h.app)
      .post("/hooks/wake")
      .set(bearer())
      .send(body as object);

  it('a valid wake → 200 {ok:true,mode:"now"}; the dispatcher gets the text and a direct source', async () => {
    const res = await post(validWake());
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.body).toEqual({ ok: true, mode: "now" });
    expect(h.dispatcher.wakes).toEqual([
      { action: { kind: "wake", text: "disk almost full", mode: "now" }, source: { hook: "wake", requestId: "req-1", allowUnsafeExternalContent: false } },
    ]);
    expect(h.accepted).toEqual([{ requestId: "req-1", hook: "wake", status: 200, kind: "wake", mappingId: undefined, runId: undefined, replayed: undefined }]);
  });

  it('mode "next-heartbeat" → 200 {ok:true,mode:"next-heartbeat"}', async () => {
    const res = await post(validWake({ mode: "next-heartbeat" }));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "next-heartbeat" });
    expect(h.dispatcher.wakes[0].action.mode).toBe("next-heartbeat");
  });

  it("unknown fields are ignored", async () => {
    const res = await post(validWake({ extra: { nested: true }, priority: 5 }));
    expect(res.status).toBe(200);
    expect(h.dispatcher.wakes[0].action).toEqual({ kind: "wake", text: "disk almost full", mode: "now" });
  });

  it.each([
    ["missing text", {}, "text is required"],
    ["blank text", { text: "   " }, "text must not be empty or blank"],
    ["empty text", { text: "" }, "text must not be empty or blank"],
    ["non-string text", { text: 42 }, "text must be a string"],
  ])("%s → 400 invalid_payload naming text", async (_what, body, message) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_payload", error: `Invalid request body: ${message}.`, details: [{ field: "text", message }] });
    expect(h.dispatcher.wakes).toHaveLength(0);
    expect(h.rejected).toEqual([{ requestId: "req-1", hook: "wake", status: 400, code: "invalid_payload" }]);
  });

  it('mode "later" → 400 naming mode', async () => {
    const res = await post(validWake({ mode: "later" }));
    expect(res.status).toBe(400);
    expect(res.body.details).toEqual([{ field: "mode", message: "mode must be one of: now, next-heartbeat" }]);
  });

  it("a dispatcher failure is rendered with its code (shutting_down → 503)", async () => {
    h.dispatcher.failNext(hookErrors.shuttingDown({ headers: { "Retry-After": "5" } }));
    const res = await post(validWake());
    expect(res.status).toBe(503);
    expect(res.body.code).toBe("shutting_down");
    expect(res.headers["retry-after"]).toBe("5");
  });
});

describe("POST /hooks/wake with the real dispatcher on the fake host: the wrapped system event and the heartbeat", () => {
  let h: RouterApp;
  beforeEach(() => {
    h = createRouterApp({
      dispatcherFor: (host, config) =>
        createDispatcher({
          config,
          runtime: host.api.runtime,
          queue: { accept: async () => err(hookErrors.internalError()), enqueueAll: async () => err(hookErrors.internalError()) },
          isShuttingDown: () => false,
        }),
    });
  });
  afterEach(() => h.close());

  it('mode "next-heartbeat": event enqueued on the main session, wrapped, no heartbeat requested', async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "build failed", mode: "next-heartbeat" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "next-heartbeat" });
    expect(h.host.systemEvents).toHaveLength(1);
    expect(h.host.systemEvents[0].sessionKey).toBe("main");
    const text = h.host.systemEvents[0].text;
    expect(text).toContain("build failed");
    const open = /<<<EXTERNAL_UNTRUSTED_CONTENT id="([0-9a-f]+)">>>/.exec(text);
    expect(open).not.toBeNull();
    expect(text).toContain(`<<<END_EXTERNAL_UNTRUSTED_CONTENT id="${open![1]}">>>`);
    expect(h.host.heartbeats).toEqual([]);
  });

  it("default mode: heartbeat requested with reason hook:wake", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "build failed" });
    expect(res.status).toBe(200);
    expect(h.host.systemEvents).toHaveLength(1);
    expect(h.host.heartbeats).toEqual([{ reason: "hook:wake" }]);
  });
});
