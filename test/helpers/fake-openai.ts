/**
 * A local fake of the OpenAI Chat Completions API (`POST <baseUrl>/chat/completions`)
 * for tests of the `openai` runner: records every request, answers with a
 * scripted reply, an HTTP error, or a delayed reply.
 *
 * @example
 *   const ai = await startFakeOpenAi({ reply: (req) => `hi ${req.body.messages.length}` });
 *   // config: agents.runner = { kind: "openai", baseUrl: ai.baseUrl, model: "openai/gpt-test" }
 *   await ai.close();
 */
import { until } from "./until";
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ChatMessageIn {
  role: string;
  content: string;
}

export interface FakeOpenAiRequest {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: { model: string; messages: ChatMessageIn[]; reasoning_effort?: string; [k: string]: unknown };
}

/** A reply: text (200 with one choice), or an explicit HTTP status and body. */
export type FakeReply = string | { status: number; body: unknown };

export interface FakeOpenAiOptions {
  reply?: (req: FakeOpenAiRequest, index: number) => FakeReply | Promise<FakeReply>;
  /** Delay before answering (the client may abort meanwhile). */
  delayMs?: number;
}

export interface FakeOpenAi {
  /** e.g. http://127.0.0.1:40123/v1 */
  baseUrl: string;
  requests: FakeOpenAiRequest[];
  /** Requests whose client went away before the answer. */
  aborted: number;
  setReply(fn: NonNullable<FakeOpenAiOptions["reply"]>): void;
  setDelay(ms: number): void;
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const defaultReply = (req: FakeOpenAiRequest, i: number): FakeReply => {
  const last = req.body.messages[req.body.messages.length - 1];
  return `reply ${i + 1} to: ${String(last?.content ?? "").slice(0, 40)}`;
};

export async function startFakeOpenAi(opts: FakeOpenAiOptions = {}): Promise<FakeOpenAi> {
  let reply = opts.reply ?? defaultReply;
  let delayMs = opts.delayMs ?? 0;
  const requests: FakeOpenAiRequest[] = [];
  const state = { aborted: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
          res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: { message: "not found" } }));
          return;
        }
        const entry: FakeOpenAiRequest = { path: req.url, headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) };
        const index = requests.push(entry) - 1;
        let gone = false;
        res.on("close", () => {
          if (!res.writableFinished) {
            gone = true;
            state.aborted += 1;
          }
        });
        if (delayMs > 0) {
          await new Promise<void>((r) => {
            const timer = setTimeout(r, delayMs);
            res.on("close", () => {
              clearTimeout(timer);
              r();
            });
          });
        }
        if (gone) return;
        const r = await reply(entry, index);
        if (typeof r === "string") {
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              id: `chatcmpl-${index + 1}`,
              object: "chat.completion",
              model: entry.body.model,
              choices: [{ index: 0, message: { role: "assistant", content: r }, finish_reason: "stop" }],
            }),
          );
        } else {
          res.writeHead(r.status, { "content-type": "application/json" }).end(JSON.stringify(r.body));
        }
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    get aborted() {
      return state.aborted;
    },
    setReply(fn) {
      reply = fn;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    async waitForRequests(n, timeoutMs = 10000) {
      await until(() => requests.length >= n, `${n} requests to the fake OpenAI server`, { timeoutMs, intervalMs: 10, detail: () => `got ${requests.length}` });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
