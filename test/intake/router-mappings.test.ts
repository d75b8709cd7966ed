/**
 * How the router hands mapped hooks to the resolver and renders its outcomes
 * (SPEC §4.1 step 5, §4.2, §6): form and JSON bodies, 415, no match → 404,
 * skip → 204, actions validated like direct requests, `mapping` in the body.
 * The resolver is a scripted double; the mapping engine has its own tests.
 */
import request from "supertest";
import { err, hookErrors, ok } from "../../src/core/errors";
import type { MappedHookInput, MappedHookOutcome, MappedHookResolver } from "../../src/core/ports";
import { bearer, createRouterApp, ROUTER_TEST_TOKEN, type RouterApp } from "../helpers/router-app";

function scripted(outcome: (input: MappedHookInput) => MappedHookOutcome | Error) {
  const inputs: MappedHookInput[] = [];
  const resolver: MappedHookResolver = {
    select(input) {
      return {
        mappingId: "scripted",
        idempotencyKey: () => undefined,
        async resolve() {
          inputs.push(input);
          const o = outcome(input);
          return o instanceof Error ? err(hookErrors.transformFailed({ cause: o })) : ok(o);
        },
      };
    },
  };
  return { resolver, inputs };
}

describe("mapped hooks in the router", () => {
  let h: RouterApp;
  afterEach(() => h.close());

  const setup = (outcome: (input: MappedHookInput) => MappedHookOutcome | Error, over: Parameters<typeof createRouterApp>[0] = {}) => {
    const s = scripted(outcome);
    h = createRouterApp({ mappings: s.resolver, idGen: () => "req-9", ...over });
    return s.inputs;
  };

  it("no match → 404 not_found", async () => {
    setup(() => ({ kind: "no_match" }));
    const res = await request(h.app).post("/hooks/github/push").set(bearer()).send({ a: 1 });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe("No hook matches /hooks/github/push; use /hooks/wake, /hooks/agent or a configured mapping.");
  });

  it("skip → 204 with an empty body and an accepted event of kind skip", async () => {
    setup(() => ({ kind: "skip", mappingId: "gh" }));
    const res = await request(h.app).post("/hooks/github").set(bearer()).send({ a: 1 });
    expect(res.status).toBe(204);
    expect(res.text).toBe("");
    expect(res.headers["content-type"]).toBeUndefined();
    expect(res.headers["x-request-id"]).toBe("req-9");
    expect(h.accepted).toEqual([expect.objectContaining({ hook: "github", mappingId: "gh", status: 204, kind: "skip" })]);
  });

  it("a wake action → 200 with mapping; the source carries the mapping and its unsafe opt-in", async () => {
    setup(() => ({ kind: "action", mappingId: "ping", raw: { kind: "wake", text: "pinged", mode: "next-heartbeat" }, allowUnsafeExternalContent: true }));
    const res = await request(h.app).post("/hooks/ping").set(bearer()).send({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, mode: "next-heartbeat", mapping: "ping" });
    expect(h.dispatcher.wakes[0]).toEqual({
      action: { kind: "wake", text: "pinged", mode: "next-heartbeat" },
      source: { hook: "ping", mappingId: "ping", requestId: "req-9", allowUnsafeExternalContent: true },
    });
  });

  it("an agent action → 202 with mapping; the session key is confined", async () => {
    setup(() => ({ kind: "action", mappingId: "gh", raw: { kind: "agent", message: "review", sessionKey: "main" }, allowUnsafeExternalContent: false }));
    const res = await request(h.app).post("/hooks/github").set(bearer()).send({});
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, runId: expect.any(String), sessionKey: "hook:main", mapping: "gh" });
  });

  it("an invalid mapped action → 400 invalid_payload naming the mapping and every field", async () => {
    setup(() => ({ kind: "action", mappingId: "gh", raw: { kind: "agent", message: "", deliver: "no" }, allowUnsafeExternalContent: false }));
    const res = await request(h.app).post("/hooks/github").set(bearer()).send({});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_payload");
    expect(res.body.error).toMatch(/^Invalid action of mapping gh \(2 problems\): /);
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(["message", "deliver"]);
  });

  it("a mapped model outside the allow-list → 400 model_not_allowed", async () => {
    setup(() => ({ kind: "action", mappingId: "gh", raw: { kind: "agent", message: "x", model: "big/model" }, allowUnsafeExternalContent: false }), {
      host: { models: [{ ref: "small/model" }] },
    });
    const res = await request(h.app).post("/hooks/github").set(bearer()).send({});
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("model_not_allowed");
  });

  it("a transform failure → 500 transform_failed with the generic message only", async () => {
    setup(() => new Error(`boom in ${process.cwd()}/hooks/transforms/gh.ts`));
    const res = await request(h.app).post("/hooks/github").set(bearer()).send({});
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ ok: false, code: "transform_failed", error: "The hook's transform failed." });
  });

  it("the resolver gets the name, JSON payload, lower-cased headers, query and the redacted URL", async () => {
    const inputs = setup(() => ({ kind: "skip", mappingId: "m" }));
    await request(h.app)
      .post(`/hooks/crm/lead?token=${ROUTER_TEST_TOKEN}&src=web`)
      .set("X-Custom", "v")
      .send({ lead: { id: 7 } });
    expect(inputs).toHaveLength(1);
    expect(inputs[0].name).toBe("crm/lead");
    expect(inputs[0].payload).toEqual({ lead: { id: 7 } });
    expect(inputs[0].headers["x-custom"]).toBe("v");
    expect(inputs[0].query.src).toBe("web");
    expect(inputs[0].url).toBe("/hooks/crm/lead?token=[REDACTED]&src=web");
    expect(inputs[0].requestId).toBe("req-9");
  });

  it("form bodies: a payload field holding JSON is unwrapped (as GitHub sends it)", async () => {
    const inputs = setup(() => ({ kind: "skip", mappingId: "m" }));
    const res = await request(h.app)
      .post("/hooks/github")
      .set(bearer())
      .type("form")
      .send(`payload=${encodeURIComponent(JSON.stringify({ action: "opened", number: 1 }))}`);
    expect(res.status).toBe(204);
    expect(inputs[0].payload).toEqual({ action: "opened", number: 1 });
  });

  it("form bodies without a JSON payload field become null-prototype objects (repeated fields → arrays)", async () => {
    const inputs = setup(() => ({ kind: "skip", mappingId: "m" }));
    await request(h.app).post("/hooks/form").set(bearer()).type("form").send("a=1&b=x&b=y&__proto__=z");
    const p = inputs[0].payload;
    expect(Object.getPrototypeOf(p)).toBeNull();
    expect(Object.keys(p)).toEqual(["a", "b", "__proto__"]);
    expect([p.a, p.b, Object.getOwnPropertyDescriptor(p, "__proto__")?.value]).toEqual(["1", ["x", "y"], "z"]);
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  it("curl -d '{…}' (form content type, JSON body) is parsed as JSON", async () => {
    const inputs = setup(() => ({ kind: "skip", mappingId: "m" }));
    await request(h.app).post("/hooks/x").set(bearer()).type("form").send('{"a":1}');
    expect(inputs[0].payload).toEqual({ a: 1 });
  });

  it("an empty body is an empty payload on mapped hooks", async () => {
    const inputs = setup(() => ({ kind: "skip", mappingId: "m" }));
    const res = await request(h.app).post("/hooks/cron").set(bearer());
    expect(res.status).toBe(204);
    expect({ ...inputs[0].payload }).toEqual({});
  });

  it("other media types on mapped hooks → 415 unsupported_media_type", async () => {
    const inputs = setup(() => ({ kind: "skip", mappingId: "m" }));
    const res = await request(h.app).post("/hooks/x").set(bearer()).set("Content-Type", "application/octet-stream").send("hello");
    expect(res.status).toBe(415);
    expect(res.body).toEqual({
      ok: false,
      code: "unsupported_media_type",
      error:
        "Content-Type application/octet-stream is not supported on mapped hooks; send application/json, application/x-www-form-urlencoded, multipart/form-data or text/plain.",
    });
    expect(inputs).toHaveLength(0);
  });

  it("a form payload field with broken JSON → 400 invalid_json", async () => {
    setup(() => ({ kind: "skip", mappingId: "m" }));
    const res = await request(h.app).post("/hooks/github").set(bearer()).type("form").send("payload=%7B%22a%22");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_json", error: "The form field payload is not valid JSON." });
  });

  it("without a resolver, mapped names are 404", async () => {
    h = createRouterApp();
    const res = await request(h.app).post("/hooks/github").set(bearer()).send({});
    expect(res.status).toBe(404);
  });
});
