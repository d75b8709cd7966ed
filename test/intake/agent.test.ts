/**
 * `POST {path}/agent` at the HTTP level (SPEC §4.4): field rules (each
 * negative test changes exactly one thing of a valid request), the model
 * allow-list, channels offered at request time, multi-error listing, and the
 * 202 body.
 */
import request from "supertest";
import { hookErrors } from "../../src/core/errors";
import { bearer, createRouterApp, type RouterApp } from "../helpers/router-app";

/** The one builder of a valid /agent request. */
const validAgent = (over: Record<string, unknown> = {}) => ({
  message: "summarise the build",
  name: "CI",
  channel: "phone_chat",
  to: "+49 151 2345 6789",
  ...over,
});

const MODELS = [{ ref: "openai/gpt-4o", alias: "gpt" }, { ref: "local/llama3" }];

describe("POST /hooks/agent: field rules, model allow-list, channels and the 202 body", () => {
  let h: RouterApp;
  beforeEach(() => {
    h = createRouterApp({ host: { models: MODELS }, idGen: () => "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" });
  });
  afterEach(() => h.close());

  const post = (body: unknown) =>
    request(h.app)
      .post("/hooks/agent")
      .set(bearer())
      .send(body as object);

  const expectInvalid = async (over: Record<string, unknown>, field: string, message: string) => {
    const res = await post(validAgent(over));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, code: "invalid_payload", error: `Invalid request body: ${message}.`, details: [{ field, message }] });
    expect(h.dispatcher.agents).toHaveLength(0);
  };

  it("the valid request → 202 {ok, runId, sessionKey}; the dispatcher gets the resolved action and a direct source", async () => {
    const res = await post(validAgent());
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ ok: true, runId: "00000000-0000-4000-8000-000000000001", sessionKey: "hook:aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa" });
    expect(h.dispatcher.agents).toEqual([
      {
        action: {
          kind: "agent",
          message: "summarise the build",
          name: "CI",
          sessionKey: "hook:aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa",
          wakeMode: "now",
          deliver: true,
          channel: "phone_chat",
          to: "+4915123456789",
          timeoutSeconds: 600,
        },
        source: { hook: "agent", requestId: "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa", allowUnsafeExternalContent: false },
        opts: undefined,
      },
    ]);
    expect(h.accepted[0]).toMatchObject({ hook: "agent", status: 202, kind: "agent", runId: "00000000-0000-4000-8000-000000000001" });
  });

  it('sessionKey "main" is confined to "hook:main"', async () => {
    const res = await post(validAgent({ sessionKey: "main" }));
    expect(res.status).toBe(202);
    expect(res.body.sessionKey).toBe("hook:main");
  });

  it("blank message → 400 naming message", () => expectInvalid({ message: "  " }, "message", "message must not be empty or blank"));
  it('deliver "yes" → 400 naming deliver', () => expectInvalid({ deliver: "yes" }, "deliver", "deliver must be a boolean (true or false)"));
  it('channel "sms" → 400 channel_unavailable listing the channels offered', async () => {
    const res = await post(validAgent({ channel: "sms", to: "42" }));
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("channel_unavailable");
    expect(res.body.details).toEqual([
      {
        field: "channel",
        message:
          'channel must be "last" or one of the channels the gateway offers: phone_chat, bot_chat, community_chat, workspace_chat, privacy_chat, device_chat, enterprise_chat',
      },
    ]);
  });
  it("timeoutSeconds 0 → 400", () => expectInvalid({ timeoutSeconds: 0 }, "timeoutSeconds", "timeoutSeconds must be greater than 0"));
  it("timeoutSeconds -1 → 400", () => expectInvalid({ timeoutSeconds: -1 }, "timeoutSeconds", "timeoutSeconds must be greater than 0"));
  it('timeoutSeconds "5" → 400 (never coerced)', () => expectInvalid({ timeoutSeconds: "5" }, "timeoutSeconds", "timeoutSeconds must be a number"));
  it('thinking "huge" → 400', () => expectInvalid({ thinking: "huge" }, "thinking", "thinking must be one of: off, minimal, low, medium, high, xhigh"));
  it('to "not a phone" with channel phone_chat → 400', () =>
    expectInvalid({ to: "not a phone" }, "to", "to must be a phone number in E.164 form (for example +4915123456789) for channel phone_chat"));

  it("a model outside the enforced allow-list → 400 model_not_allowed", async () => {
    const res = await post(validAgent({ model: "openai/gpt-5" }));
    expect(res.status).toBe(400);
    const message = "model is not in the allowed models list (agents.defaults.models); use one of: openai/gpt-4o (alias gpt), local/llama3";
    expect(res.body).toEqual({ ok: false, code: "model_not_allowed", error: `${message}.`, details: [{ field: "model", message }] });
  });

  it("an alias in the allow-list → 202 and the run gets the resolved ref", async () => {
    const res = await post(validAgent({ model: "gpt" }));
    expect(res.status).toBe(202);
    expect(h.dispatcher.agents[0].action.model).toBe("openai/gpt-4o");
  });

  it("a listed ref → 202", async () => {
    const res = await post(validAgent({ model: "local/llama3" }));
    expect(res.status).toBe(202);
    expect(h.dispatcher.agents[0].action.model).toBe("local/llama3");
  });

  it("a body with several errors lists them all (model included, code invalid_payload)", async () => {
    const res = await post({ message: "", deliver: "yes", channel: "sms", timeoutSeconds: "5", thinking: "huge", model: "nope" });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe("invalid_payload");
    expect(res.body.details.map((d: { field: string }) => d.field)).toEqual(["message", "deliver", "channel", "model", "thinking", "timeoutSeconds"]);
    expect(res.body.error).toMatch(/^Invalid request body \(6 problems\): message must not be empty or blank; deliver must be a boolean/);
  });

  it("channels are checked against what the host offers at request time", async () => {
    const plugin = { channel: "workspace_chat_plugin", to: "C123" };
    expect((await post(validAgent(plugin))).status).toBe(400);
    h.host.channels.push("workspace_chat_plugin");
    const res = await post(validAgent(plugin));
    expect(res.status).toBe(202);
    expect(h.dispatcher.agents[0].action.channel).toBe("workspace_chat_plugin");
  });

  it("overloaded from the dispatcher → 503 overloaded with Retry-After", async () => {
    h.dispatcher.failNext(hookErrors.overloaded({ maxQueued: 100 }, { headers: { "Retry-After": "30" } }));
    const res = await post(validAgent());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ ok: false, code: "overloaded", error: "Too many runs are queued (hooks.runs.maxQueued is 100); retry later." });
    expect(res.headers["retry-after"]).toBe("30");
  });
});

describe("POST /hooks/agent without an allow-list", () => {
  it("any model is accepted and passed through resolve()", async () => {
    const h = createRouterApp();
    try {
      const res = await request(h.app)
        .post("/hooks/agent")
        .set(bearer())
        .send(validAgent({ model: "anything/at-all" }));
      expect(res.status).toBe(202);
      expect(h.dispatcher.agents[0].action.model).toBe("anything/at-all");
    } finally {
      h.close();
    }
  });
});
