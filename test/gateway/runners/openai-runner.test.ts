import { until } from "../../helpers/until";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createOpenAiRunner, stripProvider, chatCompletionsBody } from "../../../src/gateway/runners/openai-runner";
import { startFakeOpenAi, type FakeOpenAi } from "../../helpers/fake-openai";

const never = new AbortController().signal;

describe("openai runner", () => {
  let ai: FakeOpenAi;
  beforeEach(async () => {
    ai = await startFakeOpenAi();
  });
  afterEach(() => ai.close());

  it("sends history + the new user message, the model without provider, and reasoning_effort", async () => {
    const runner = createOpenAiRunner({ baseUrl: `${ai.baseUrl}/`, apiKeyEnv: "FAKE_KEY", env: { FAKE_KEY: "sk-test" } });
    const r = await runner.run({
      sessionKey: "hook:1",
      model: "openai/gpt-test",
      thinking: "high",
      history: [
        { role: "user", content: "before" },
        { role: "assistant", content: "answer" },
      ],
      message: "now",
      signal: never,
    });
    expect(r).toEqual({ status: "ok", reply: "reply 1 to: now" });
    expect(ai.requests).toHaveLength(1);
    expect(ai.requests[0]!.path).toBe("/v1/chat/completions");
    expect(ai.requests[0]!.headers.authorization).toBe("Bearer sk-test");
    expect(ai.requests[0]!.body).toEqual({
      model: "gpt-test",
      messages: [
        { role: "user", content: "before" },
        { role: "assistant", content: "answer" },
        { role: "user", content: "now" },
      ],
      reasoning_effort: "high",
    });
  });

  it("omits reasoning_effort for thinking off and when unset", () => {
    const base = { sessionKey: "k", history: [], message: "m", signal: never };
    expect(chatCompletionsBody({ ...base, thinking: "off" }, "p/m")).not.toHaveProperty("reasoning_effort");
    expect(chatCompletionsBody(base, "p/m")).not.toHaveProperty("reasoning_effort");
    expect(chatCompletionsBody({ ...base, thinking: "minimal" }, "m").reasoning_effort).toBe("minimal");
  });

  it("strips only the first path segment as the provider", () => {
    expect(stripProvider("openai/gpt-4o")).toBe("gpt-4o");
    expect(stripProvider("openrouter/meta/llama-3")).toBe("meta/llama-3");
    expect(stripProvider("gpt-4o")).toBe("gpt-4o");
  });

  it("reports an HTTP error with its status and the server's message", async () => {
    ai.setReply(() => ({ status: 429, body: { error: { message: "rate limited, slow down" } } }));
    const r = await createOpenAiRunner({ baseUrl: ai.baseUrl }).run({ sessionKey: "k", model: "x/y", history: [], message: "m", signal: never });
    expect(r).toEqual({ status: "error", error: "HTTP 429: rate limited, slow down" });
  });

  it("reports a response without content as an error", async () => {
    ai.setReply(() => ({ status: 200, body: { choices: [] } }));
    const r = await createOpenAiRunner({ baseUrl: ai.baseUrl }).run({ sessionKey: "k", model: "x/y", history: [], message: "m", signal: never });
    expect(r).toEqual({ status: "error", error: "the response has no choices[0].message.content" });
  });

  it("reports a network error (nothing listening) as an error with the reason", async () => {
    const srv = http.createServer();
    await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise<void>((r) => srv.close(() => r()));
    const r = await createOpenAiRunner({ baseUrl: `http://127.0.0.1:${port}/v1` }).run({
      sessionKey: "k",
      model: "x/y",
      history: [],
      message: "m",
      signal: never,
    });
    expect(r).toEqual({ status: "error", error: "network error: ECONNREFUSED" });
  });

  it("reports a missing API key variable without calling the server", async () => {
    const r = await createOpenAiRunner({ baseUrl: ai.baseUrl, apiKeyEnv: "NOPE_KEY", env: {} }).run({
      sessionKey: "k",
      model: "x/y",
      history: [],
      message: "m",
      signal: never,
    });
    expect(r).toEqual({ status: "error", error: "environment variable NOPE_KEY (agents.runner.apiKeyEnv) is not set" });
    expect(ai.requests).toHaveLength(0);
  });

  it("cancels the request when the signal aborts", async () => {
    ai.setDelay(60_000);
    const ctl = new AbortController();
    const p = createOpenAiRunner({ baseUrl: ai.baseUrl }).run({ sessionKey: "k", model: "x/y", history: [], message: "m", signal: ctl.signal });
    await ai.waitForRequests(1);
    ctl.abort(new Error("timeout"));
    await expect(p).rejects.toThrow("timeout");
    await until(() => ai.aborted >= 1, "the fake server to see the aborted request", { timeoutMs: 5000 });
    expect(ai.aborted).toBe(1);
  });
});
