/**
 * SPEC §4.2 and the logging rules of SPEC §9: no response
 * body contains a stack trace, the token or a filesystem path; no log line
 * contains the token or the payload; unexpected errors are a bare 500 with the
 * cause only in the log.
 */
import request from "supertest";
import { hookErrors } from "../../src/core/errors";
import { bearer, createRouterApp, ROUTER_TEST_TOKEN, type RouterApp } from "../helpers/router-app";
import { expectCleanBody } from "../helpers/expect-clean";

const PAYLOAD_MARKER = "payload-marker-7f3a";

/** Things that must never appear in a response body (the shared check; see test/helpers/expect-clean.ts). */
function expectClean(body: string): void {
  expectCleanBody(body, [ROUTER_TEST_TOKEN]);
}

describe("no stack, token, path or payload leaks into responses or logs", () => {
  let h: RouterApp;
  beforeEach(() => {
    h = createRouterApp({ host: { models: [{ ref: "openai/gpt-4o" }] } });
  });
  afterEach(() => h.close());

  it("no response body of any kind contains a stack, the token or a path, and no log line the token or payload", async () => {
    const app = h.app;
    const q = `?token=${ROUTER_TEST_TOKEN}`;
    const responses = [
      await request(app).post("/hooks/wake").set(bearer()).send({ text: PAYLOAD_MARKER }),
      await request(app).post(`/hooks/wake${q}`).send({ text: PAYLOAD_MARKER }),
      await request(app).post("/hooks/wake").set("x-service-token", ROUTER_TEST_TOKEN).send({ text: PAYLOAD_MARKER }),
      await request(app).post("/hooks/agent").set(bearer()).send({ message: PAYLOAD_MARKER }),
      await request(app).post("/hooks/wake").set(bearer("wrong-token-wrong-token")).send({ text: PAYLOAD_MARKER }),
      await request(app).post(`/hooks/wake?token=${ROUTER_TEST_TOKEN}x`).send({ text: PAYLOAD_MARKER }),
      await request(app).post("/hooks/wake").send({ text: PAYLOAD_MARKER }),
      await request(app).get(`/hooks/wake${q}`),
      await request(app).post(`/hooks${q}`).send({}),
      await request(app).post("/hooks/nope").set(bearer()).send({ text: PAYLOAD_MARKER }),
      await request(app).post("/hooks/wake").set(bearer()).type("json").send(`{"text":"${PAYLOAD_MARKER}"`),
      await request(app).post("/hooks/wake").set(bearer()).type("json").send(`{"__proto__":{"a":"${PAYLOAD_MARKER}"}}`),
      await request(app).post("/hooks/agent").set(bearer()).send({ message: PAYLOAD_MARKER, model: "x/y", channel: "sms", timeoutSeconds: "5" }),
      await request(app)
        .post("/hooks/wake")
        .set(bearer())
        .send({ text: "x".repeat(300 * 1024) }),
      await request(app).get("/hooks/runs/unknown").set(bearer()),
    ];
    h.dispatcher.throwNext(new Error(`database exploded at ${__filename}:12:5`));
    responses.push(await request(app).post("/hooks/wake").set(bearer()).send({ text: PAYLOAD_MARKER }));

    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 202, 401, 401, 401, 405, 404, 404, 400, 400, 400, 413, 404, 500]);
    for (const r of responses) expectClean(r.text);

    // Each accepted request has its line; a refusal one per client and code (its repeats are counted when the
    // window ends, src/intake/refusal-log.ts): the last request's line comes after all of them.
    await h.host.waitFor(
      () => h.host.logs.some((l) => l.message === "hook request rejected" && (l.meta as { code?: string }).code === "internal_error"),
      3000,
      "the last request's log line",
    );
    const lines = h.logText();
    for (const line of lines) {
      expect(line).not.toContain(ROUTER_TEST_TOKEN);
      expect(line).not.toContain(PAYLOAD_MARKER);
    }
  });

  it("an unexpected error → 500 internal_error with the generic message; the cause is logged", async () => {
    h.dispatcher.throwNext(new Error(`database exploded at ${__filename}:12:5`));
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "hi" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ ok: false, code: "internal_error", error: "Internal error." });
    await h.host.waitFor(() => h.host.logs.some((l) => l.level === "error" && /unexpected error/.test(l.message)), 2000, "error log");
    const logged = h.host.logs.find((l) => /unexpected error/.test(l.message))!;
    expect(String(logged.meta?.error)).toContain("database exploded");
    expect(h.rejected.at(-1)).toMatchObject({ status: 500, code: "internal_error" });
  });

  it("a HookError's cause never reaches the body", async () => {
    h.dispatcher.failNext(hookErrors.runNotStored({ cause: new Error(`EACCES ${process.cwd()}/state`) }));
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "hi" });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ ok: false, code: "internal_error", error: "The run could not be stored, so it was not accepted; retry later." });
    expectClean(res.text);
  });

  it("rejections are logged with request id, hook, status, code, size and latency", async () => {
    const res = await request(h.app).post("/hooks/wake").set(bearer()).send({ text: "" });
    expect(res.status).toBe(400);
    await h.host.waitFor(() => h.host.logs.some((l) => l.message === "hook request rejected"), 2000, "rejection log");
    const line = h.host.logs.find((l) => l.message === "hook request rejected")!;
    expect(line.level).toBe("warn");
    expect(line.meta).toMatchObject({
      requestId: res.headers["x-request-id"],
      hook: "wake",
      status: 400,
      code: "invalid_payload",
      bytes: Buffer.byteLength('{"text":""}'),
      method: "POST",
      url: "/hooks/wake",
      module: "http",
    });
    expect(typeof line.meta?.latencyMs).toBe("number");
  });
});
