/**
 * The routing rules of SPEC §4.1: method before
 * auth, the mount point itself, prefix tricks, unknown hooks, run status, and
 * `X-Request-Id` on every response of the plugin.
 */
import request from "supertest";
import type { RunRecord } from "../../src/core/runs";
import { bearer, createRouterApp, HOST_NOT_FOUND, type RouterApp } from "../helpers/router-app";

const UUIDISH = /^[0-9a-f-]{36}$/;

function runRecord(over: Partial<RunRecord> = {}): RunRecord {
  return {
    id: "11111111-1111-4111-8111-111111111111",
    status: "succeeded",
    seq: 1,
    action: { kind: "agent", message: "m", name: "CI", sessionKey: "hook:ci", wakeMode: "now", deliver: true, channel: "last", timeoutSeconds: 600 },
    source: { hook: "agent", requestId: "r1", allowUnsafeExternalContent: false },
    createdAt: "2024-01-01T00:00:00.000Z",
    startedAt: "2024-01-01T00:00:01.000Z",
    finishedAt: "2024-01-01T00:00:02.000Z",
    summary: "Hook CI: done",
    error: "internal detail",
    idempotencyKey: '["/hooks/agent","k"]',
    ...over,
  };
}

describe("routing: method, mount point, prefixes, unknown hooks and run status", () => {
  let h: RouterApp;
  beforeEach(() => {
    const run = runRecord();
    h = createRouterApp({ runs: { get: (id) => (id === run.id ? run : undefined) } });
  });
  afterEach(() => h.close());

  it("GET /hooks/wake → 405 with Allow: POST, before auth", async () => {
    const res = await request(h.app).get("/hooks/wake");
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
    expect(res.body).toEqual({ ok: false, code: "method_not_allowed", error: "Only POST is allowed on this hook." });
    expect(res.headers["x-request-id"]).toMatch(UUIDISH);
  });

  it.each(["PUT", "DELETE", "PATCH"] as const)("%s /hooks/agent → 405 with Allow: POST", async (method) => {
    const res = await request(h.app)[method.toLowerCase() as "put" | "delete" | "patch"]("/hooks/agent").set(bearer());
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("POST");
  });

  it("POST /hooks (the mount point itself) → 404 not_found from the plugin", async () => {
    const res = await request(h.app).post("/hooks").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
    expect(res.headers["x-request-id"]).toMatch(UUIDISH);
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("POST /hooks/%ZZ (undecodable) → 404 not_found that says so, not the mount-point message", async () => {
    const res = await request(h.app).post("/hooks/%ZZ").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, code: "not_found", error: "No hook has this name: the path after /hooks/ is not valid percent-encoded UTF-8." });
    const mount = await request(h.app).post("/hooks").set(bearer()).send({ text: "x" });
    expect(mount.body.error).toBe("No hook at /hooks itself; POST to /hooks/wake, /hooks/agent or a mapped hook.");
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("POST /hooks/ → 404 not_found", async () => {
    const res = await request(h.app).post("/hooks/").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  it("POST /hooksX/wake is not handled by the plugin (the host's 404 answers)", async () => {
    const res = await request(h.app).post("/hooksX/wake").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(404);
    expect(res.text).toBe(HOST_NOT_FOUND);
    expect(res.text).not.toContain("not_found");
    expect(res.headers["x-request-id"]).toBeUndefined();
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("a case variant of the mount path (/HOOKS/wake) is not handled by the plugin", async () => {
    const res = await request(h.app).post("/HOOKS/wake").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(404);
    expect(res.text).toBe(HOST_NOT_FOUND);
    expect(h.dispatcher.wakes).toHaveLength(0);
  });

  it("an unknown hook name without mappings → 404 not_found naming the path", async () => {
    const res = await request(h.app).post("/hooks/nope").set(bearer()).send({ a: 1 });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ ok: false, code: "not_found", error: "No hook matches /hooks/nope; use /hooks/wake, /hooks/agent or a configured mapping." });
  });

  it("an unknown hook name is 401 without a token (auth before routing)", async () => {
    const res = await request(h.app).post("/hooks/nope").send({ a: 1 });
    expect(res.status).toBe(401);
  });

  it("a trailing slash still reaches the hook: POST /hooks/wake/ → 200", async () => {
    const res = await request(h.app).post("/hooks/wake/").set(bearer()).send({ text: "x" });
    expect(res.status).toBe(200);
  });

  it("GET /hooks/runs/<id> → 200 with the public run view", async () => {
    const res = await request(h.app).get("/hooks/runs/11111111-1111-4111-8111-111111111111").set(bearer());
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(res.body).toEqual({
      ok: true,
      run: {
        id: "11111111-1111-4111-8111-111111111111",
        status: "succeeded",
        name: "CI",
        sessionKey: "hook:ci",
        createdAt: "2024-01-01T00:00:00.000Z",
        startedAt: "2024-01-01T00:00:01.000Z",
        finishedAt: "2024-01-01T00:00:02.000Z",
        summary: "Hook CI: done",
      },
    });
  });

  it("GET /hooks/runs/<unknown> → 404 not_found", async () => {
    const res = await request(h.app).get("/hooks/runs/22222222-2222-4222-8222-222222222222").set(bearer());
    expect(res.status).toBe(404);
    expect(res.body.code).toBe("not_found");
  });

  it("GET /hooks/runs/<id> without a token → 401", async () => {
    const res = await request(h.app).get("/hooks/runs/11111111-1111-4111-8111-111111111111");
    expect(res.status).toBe(401);
  });

  it("POST /hooks/runs/<id> → 405 with Allow: GET", async () => {
    const res = await request(h.app).post("/hooks/runs/11111111-1111-4111-8111-111111111111").set(bearer()).send({});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe("GET");
    expect(res.body.code).toBe("method_not_allowed");
  });

  it("without a run lookup every run is 404", async () => {
    h.close();
    h = createRouterApp();
    const res = await request(h.app).get("/hooks/runs/11111111-1111-4111-8111-111111111111").set(bearer());
    expect(res.status).toBe(404);
  });
});

describe("X-Request-Id", () => {
  let h: RouterApp;
  afterEach(() => h.close());

  it("is generated with the injected id generator and sent on success", async () => {
    let n = 0;
    h = createRouterApp({ idGen: () => `gen-${++n}` });
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "x" });
    expect(res.headers["x-request-id"]).toBe("gen-1");
  });

  it("keeps a well-formed incoming id", async () => {
    h = createRouterApp();
    const res = await request(h.app).post("/hooks/wake").set(bearer()).set("X-Request-Id", "proxy-abc.123").send({ text: "x" });
    expect(res.headers["x-request-id"]).toBe("proxy-abc.123");
  });

  it("replaces a malformed incoming id", async () => {
    h = createRouterApp({ idGen: () => "fresh-id" });
    const res = await request(h.app).post("/hooks/wake").set(bearer()).set("X-Request-Id", "has spaces <and> junk").send({ text: "x" });
    expect(res.headers["x-request-id"]).toBe("fresh-id");
  });

  it.each([
    ["401", (app: RouterApp["app"]) => request(app).post("/hooks/wake").send({ text: "x" })],
    ["405", (app: RouterApp["app"]) => request(app).get("/hooks/agent")],
    ["404", (app: RouterApp["app"]) => request(app).post("/hooks").set(bearer()).send({})],
    ["400", (app: RouterApp["app"]) => request(app).post("/hooks/wake").set(bearer()).send("{")],
  ])("is on the %s error response too, with the JSON content type", async (status, send) => {
    h = createRouterApp({ idGen: () => "err-id" });
    const res = await send(h.app);
    expect(String(res.status)).toBe(status);
    expect(res.headers["x-request-id"]).toBe("err-id");
    expect(res.headers["content-type"]).toBe("application/json; charset=utf-8");
  });
});
