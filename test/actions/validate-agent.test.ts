/**
 * Every `/agent` field rule of SPEC §4.4: one valid builder, and one negative
 * test per rule that changes exactly one thing.
 */
import { validateAgent, type ValidationContext } from "../../src/actions/validate";
import type { AllowedModel } from "../../src/host-contract/host-api";
import { createFakeHost } from "../helpers/fake-host";
import { resolvedConfig } from "../helpers/resolved-config";

const MODELS: AllowedModel[] = [{ ref: "openai/gpt-4o", alias: "gpt" }, { ref: "local/llama3" }];

function context(opts: { models?: AllowedModel[]; channels?: string[]; prefixes?: string[] } = {}): ValidationContext {
  const host = createFakeHost({ models: opts.models ?? MODELS, channels: opts.channels });
  return {
    runtime: host.api.runtime,
    config: resolvedConfig({ defaultTimeoutSeconds: 600, ...(opts.prefixes ? { allowedSessionKeyPrefixes: opts.prefixes } : {}) }),
    idGen: () => "uuid-1",
  };
}

/** The one valid request every test starts from. */
const valid = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  message: "summarise the build",
  name: "CI",
  sessionKey: "hook:ci",
  wakeMode: "now",
  deliver: true,
  channel: "bot_chat",
  to: "12345",
  model: "gpt",
  thinking: "low",
  timeoutSeconds: 120,
  ...over,
});

function problems(raw: unknown, ctx = context()) {
  const r = validateAgent(raw, ctx);
  if (r.ok) throw new Error(`expected a validation error, got ${JSON.stringify(r.value)}`);
  return r.error;
}

function accepted(raw: unknown, ctx = context()) {
  const r = validateAgent(raw, ctx);
  if (!r.ok) throw new Error(`expected success, got ${r.error.message}`);
  return r.value;
}

describe("validateAgent: the valid request", () => {
  it("resolves every field", () => {
    expect(accepted(valid())).toEqual({
      kind: "agent",
      message: "summarise the build",
      name: "CI",
      sessionKey: "hook:ci",
      wakeMode: "now",
      deliver: true,
      channel: "bot_chat",
      to: "12345",
      model: "openai/gpt-4o",
      thinking: "low",
      timeoutSeconds: 120,
    });
  });

  it("applies the defaults for a message-only request", () => {
    expect(accepted({ message: "hi" })).toEqual({
      kind: "agent",
      message: "hi",
      name: "Hook",
      sessionKey: "hook:uuid-1",
      wakeMode: "now",
      deliver: true,
      channel: "last",
      timeoutSeconds: 600,
    });
  });

  it("ignores unknown fields", () => {
    expect(accepted(valid({ priority: "high", nested: { a: 1 } }))).not.toHaveProperty("priority");
  });
});

describe("validateAgent: one negative test per rule", () => {
  it.each([
    ["message missing", { message: undefined }, "message", "message is required"],
    ["message empty", { message: "" }, "message", "message must not be empty or blank"],
    ["message blank", { message: "   " }, "message", "message must not be empty or blank"],
    ["message not a string", { message: 5 }, "message", "message must be a string"],
    ["name not a string", { name: 5 }, "name", "name must be a string"],
    ["name longer than 200", { name: "n".repeat(201) }, "name", "name must be at most 200 characters long"],
    ["sessionKey not a string", { sessionKey: 5 }, "sessionKey", "sessionKey must be a string"],
    ["sessionKey empty", { sessionKey: "" }, "sessionKey", "sessionKey must not be empty or blank"],
    ["sessionKey blank", { sessionKey: "  " }, "sessionKey", "sessionKey must not be empty or blank"],
    ["sessionKey longer than 256", { sessionKey: "k".repeat(257) }, "sessionKey", "sessionKey must be at most 256 characters long"],
    ["sessionKey with a control character", { sessionKey: "hook:a\nb" }, "sessionKey", "sessionKey must not contain control characters"],
    ["wakeMode unknown", { wakeMode: "later" }, "wakeMode", "wakeMode must be one of: now, next-heartbeat"],
    ['deliver "yes"', { deliver: "yes" }, "deliver", "deliver must be a boolean (true or false)"],
    ['deliver "true" (not coerced)', { deliver: "true" }, "deliver", "deliver must be a boolean (true or false)"],
    ["deliver 1", { deliver: 1 }, "deliver", "deliver must be a boolean (true or false)"],
    ["to not a string", { to: 12345 }, "to", "to must be a string"],
    ["to empty", { to: "" }, "to", "to must not be empty or blank"],
    ["to blank", { to: "  " }, "to", "to must not be empty or blank"],
    ["to longer than 256", { to: "t".repeat(257) }, "to", "to must be at most 256 characters long"],
    [
      "to not a phone number on phone_chat",
      { channel: "phone_chat", to: "not a phone" },
      "to",
      "to must be a phone number in E.164 form (for example +4915123456789) for channel phone_chat",
    ],
    [
      "to without + on privacy_chat",
      { channel: "privacy_chat", to: "4915123456789" },
      "to",
      "to must be a phone number in E.164 form (for example +4915123456789) for channel privacy_chat",
    ],
    ["model not a string", { model: 5 }, "model", "model must be a string"],
    ["model empty", { model: "" }, "model", "model must not be empty or blank"],
    ["model longer than 256", { model: "m".repeat(257) }, "model", "model must be at most 256 characters long"],
    ["thinking unknown", { thinking: "huge" }, "thinking", "thinking must be one of: off, minimal, low, medium, high, xhigh"],
    ["timeoutSeconds 0", { timeoutSeconds: 0 }, "timeoutSeconds", "timeoutSeconds must be greater than 0"],
    ["timeoutSeconds -1", { timeoutSeconds: -1 }, "timeoutSeconds", "timeoutSeconds must be greater than 0"],
    ['timeoutSeconds "5"', { timeoutSeconds: "5" }, "timeoutSeconds", "timeoutSeconds must be a number"],
    ["timeoutSeconds over 86400", { timeoutSeconds: 86_401 }, "timeoutSeconds", "timeoutSeconds must be at most 86400"],
    ["timeoutSeconds NaN", { timeoutSeconds: Number.NaN }, "timeoutSeconds", "timeoutSeconds must be a number"],
  ])("%s → invalid_payload naming the field", (_what, over, field, message) => {
    const e = problems(valid(over));
    expect(e.code).toBe("invalid_payload");
    expect(e.details).toEqual([{ field, message }]);
    expect(e.message).toBe(`Invalid request body: ${message}.`);
  });

  it("a model outside the enforced allow-list → model_not_allowed listing the allowed ones", () => {
    const e = problems(valid({ model: "openai/gpt-5" }));
    const message = "model is not in the allowed models list (agents.defaults.models); use one of: openai/gpt-4o (alias gpt), local/llama3";
    expect(e.code).toBe("model_not_allowed");
    expect(e.status).toBe(400);
    expect(e.details).toEqual([{ field: "model", message }]);
    expect(e.message).toBe(`${message}.`);
  });

  it("a disallowed model plus another problem → invalid_payload listing both", () => {
    const e = problems(valid({ model: "openai/gpt-5", thinking: "huge" }));
    expect(e.code).toBe("invalid_payload");
    expect(e.details?.map((d) => d.field)).toEqual(["model", "thinking"]);
  });

  it("a body with many problems lists every one, in body order, one per field", () => {
    const e = problems({
      message: "",
      name: 1,
      sessionKey: "",
      wakeMode: "x",
      deliver: "yes",
      channel: "sms",
      to: "",
      model: "",
      thinking: "huge",
      timeoutSeconds: "5",
    });
    expect(e.details?.map((d) => d.field)).toEqual([
      "message",
      "name",
      "sessionKey",
      "wakeMode",
      "deliver",
      "channel",
      "to",
      "model",
      "thinking",
      "timeoutSeconds",
    ]);
    expect(e.message).toMatch(/^Invalid request body \(10 problems\): /);
  });

  it.each([[[]], [null], ["x"]])("a non-object (%j) → invalid_payload on the body", (raw) => {
    expect(problems(raw).details).toEqual([{ field: "body", message: "the body must be a JSON object" }]);
  });
});

describe("validateAgent: normalisation", () => {
  it("strips control characters from the name", () => {
    expect(accepted(valid({ name: "CI\n\u001b[1mBuild\u202e" })).name).toBe("CI[1mBuild");
  });

  it("measures the name after stripping (200 visible characters plus controls is fine)", () => {
    expect(accepted(valid({ name: `${"n".repeat(200)}\n\n` })).name).toBe("n".repeat(200));
  });

  it.each(["", "   ", "\n\t"])("a name of %j falls back to Hook", (name) => {
    expect(accepted(valid({ name })).name).toBe("Hook");
  });

  it("confines session keys to the hook namespace", () => {
    expect(accepted(valid({ sessionKey: "main" })).sessionKey).toBe("hook:main");
    expect(accepted(valid({ sessionKey: "hook:crm-1" })).sessionKey).toBe("hook:crm-1");
    expect(accepted(valid({ sessionKey: "k".repeat(256) })).sessionKey).toBe(`hook:${"k".repeat(256)}`);
  });

  it("keeps keys under a configured extra prefix", () => {
    const ctx = context({ prefixes: ["hook:", "crm:"] });
    expect(accepted(valid({ sessionKey: "crm:42" }), ctx).sessionKey).toBe("crm:42");
    expect(accepted(valid({ sessionKey: "main" }), ctx).sessionKey).toBe("hook:main");
  });

  it("normalises phone numbers to E.164 on phone channels", () => {
    expect(accepted(valid({ channel: "phone_chat", to: "+1 (555) 123-4567" })).to).toBe("+15551234567");
    expect(accepted(valid({ channel: "privacy_chat", to: "+49.151.2345.6789" })).to).toBe("+4915123456789");
  });

  it("does not apply the phone rule to other channels or to last", () => {
    expect(accepted(valid({ channel: "bot_chat", to: " not a phone " })).to).toBe("not a phone");
    expect(accepted(valid({ channel: "last", to: "not a phone" })).to).toBe("not a phone");
  });

  it("a channel the host does not offer → channel_unavailable naming the ones it offers (SPEC §4.2)", () => {
    const e = problems(valid({ channel: "sms" }));
    expect(e.code).toBe("channel_unavailable");
    expect(e.status).toBe(400);
    const message =
      'channel must be "last" or one of the channels the gateway offers: phone_chat, bot_chat, community_chat, workspace_chat, privacy_chat, device_chat, enterprise_chat';
    expect(e.details).toEqual([{ field: "channel", message }]);
    expect(e.message).toBe(`${message}.`);
  });

  it("an unoffered channel beside another problem is listed under invalid_payload", () => {
    const e = problems(valid({ channel: "sms", deliver: "yes" }));
    expect(e.code).toBe("invalid_payload");
    expect(e.details?.map((d) => d.field)).toEqual(["deliver", "channel"]);
  });

  it("accepts channels only while the host offers them", () => {
    expect(problems(valid({ channel: "workspace_chat_plugin" })).details?.[0].field).toBe("channel");
    const ctx = context({ channels: ["bot_chat", "workspace_chat_plugin"] });
    expect(accepted(valid({ channel: "workspace_chat_plugin" }), ctx).channel).toBe("workspace_chat_plugin");
  });

  it("says so when the host offers no channel at all", () => {
    const e = problems(valid({ channel: "bot_chat" }), context({ channels: [] }));
    expect(e.code).toBe("channel_unavailable");
    expect(e.details).toEqual([{ field: "channel", message: 'channel must be "last" (the gateway offers no other channels right now)' }]);
  });

  it("resolves aliases and keeps listed refs", () => {
    expect(accepted(valid({ model: "gpt" })).model).toBe("openai/gpt-4o");
    expect(accepted(valid({ model: "local/llama3" })).model).toBe("local/llama3");
  });

  it("accepts any model when the allow-list is empty", () => {
    expect(accepted(valid({ model: "whatever/model" }), context({ models: [] })).model).toBe("whatever/model");
  });

  it.each(["off", "minimal", "low", "medium", "high", "xhigh"])("accepts thinking %s", (thinking) => {
    expect(accepted(valid({ thinking })).thinking).toBe(thinking);
  });

  it("accepts the timeout bounds and fractions", () => {
    expect(accepted(valid({ timeoutSeconds: 86_400 })).timeoutSeconds).toBe(86_400);
    expect(accepted(valid({ timeoutSeconds: 0.5 })).timeoutSeconds).toBe(0.5);
  });

  it("keeps deliver false and next-heartbeat", () => {
    const a = accepted(valid({ deliver: false, wakeMode: "next-heartbeat" }));
    expect([a.deliver, a.wakeMode]).toEqual([false, "next-heartbeat"]);
  });
});
