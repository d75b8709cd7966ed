/**
 * Runner for any OpenAI-compatible Chat Completions server
 * (`agents.runner = { kind: "openai", baseUrl, apiKeyEnv?, model? }`).
 * Sends the session's prior turns plus the new user message, the model without
 * its `provider/` prefix, and `reasoning_effort` from the thinking level (omitted
 * for `off` or when unset). HTTP and network failures come back as
 * `{ status: "error", error: <reason> }`; the abort signal cancels the request.
 */
import type { AgentRunner, RunnerTurn } from "./agent-runner";

export interface OpenAiRunnerOptions {
  /** e.g. `http://127.0.0.1:8080/v1` (no trailing slash needed). */
  baseUrl: string;
  /** Name of the environment variable holding the API key (sent as Bearer). */
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
  fetchImpl?: typeof fetch;
}

/** `openai/gpt-4o` → `gpt-4o`; a ref without a provider is returned unchanged. */
export function stripProvider(ref: string): string {
  const i = ref.indexOf("/");
  return i === -1 ? ref : ref.slice(i + 1);
}

/** The Chat Completions request body for one turn. */
export function chatCompletionsBody(turn: RunnerTurn, model: string): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: stripProvider(model),
    messages: [...turn.history.map((m) => ({ role: m.role, content: m.content })), { role: "user", content: turn.message }],
  };
  if (turn.thinking && turn.thinking !== "off") body.reasoning_effort = turn.thinking;
  return body;
}

const MAX_REASON = 300;
const clipReason = (s: string) => (s.length > MAX_REASON ? `${s.slice(0, MAX_REASON)}…` : s);

export function createOpenAiRunner(opts: OpenAiRunnerOptions): AgentRunner {
  const base = opts.baseUrl.replace(/\/+$/, "");
  const doFetch = opts.fetchImpl ?? fetch;
  const env = opts.env ?? process.env;
  return {
    kind: "openai",
    async run(turn) {
      if (!turn.model) return { status: "error", error: "no model given and no default model configured (agents.runner.model)" };
      const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
      if (opts.apiKeyEnv) {
        const key = env[opts.apiKeyEnv];
        if (!key) return { status: "error", error: `environment variable ${opts.apiKeyEnv} (agents.runner.apiKeyEnv) is not set` };
        headers.authorization = `Bearer ${key}`;
      }
      let res: Response;
      try {
        res = await doFetch(`${base}/chat/completions`, {
          method: "POST",
          headers,
          body: JSON.stringify(chatCompletionsBody(turn, turn.model)),
          signal: turn.signal,
        });
      } catch (e) {
        if (turn.signal.aborted) throw turn.signal.reason;
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        return { status: "error", error: clipReason(`network error: ${cause?.code ?? cause?.message ?? (e as Error).message}`) };
      }
      let text: string;
      try {
        text = await res.text();
      } catch (e) {
        if (turn.signal.aborted) throw turn.signal.reason;
        return { status: "error", error: clipReason(`network error while reading the response: ${(e as Error).message}`) };
      }
      let json: unknown;
      try {
        json = text === "" ? undefined : JSON.parse(text);
      } catch {
        json = undefined;
      }
      if (!res.ok) {
        const msg = (json as { error?: { message?: unknown } } | undefined)?.error?.message;
        return { status: "error", error: clipReason(`HTTP ${res.status}${typeof msg === "string" ? `: ${msg}` : ""}`) };
      }
      const content = (json as { choices?: Array<{ message?: { content?: unknown } }> } | undefined)?.choices?.[0]?.message?.content;
      if (typeof content !== "string") return { status: "error", error: "the response has no choices[0].message.content" };
      return { status: "ok", reply: content };
    },
  };
}
