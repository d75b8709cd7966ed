/**
 * A local OpenAI-compatible model server for the OpenClaw suite: OpenClaw is
 * configured with it as `models.providers.fake` (`api: "openai-completions"`). It
 * answers `GET /v1/models` and `POST /v1/chat/completions` (streamed as
 * server-sent events when asked, as OpenClaw asks) and records every request, so a
 * test can see what OpenClaw sent the model: the heartbeat prompt with the system
 * events, an agent run's wrapped message.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ModelRequest {
  method: string;
  path: string;
  /** The raw body text (the prompt is searched as text: OpenClaw's message shapes vary). */
  body: string;
}

export interface FakeModel {
  /** e.g. http://127.0.0.1:40123/v1 */
  baseUrl: string;
  requests: ModelRequest[];
  /** Chat requests whose body contains `text`. */
  chatsContaining(text: string): ModelRequest[];
  /** With `hold`: answers the chats held so far, and every later one at once. */
  release(): void;
  /** Holds every later chat again, until the next `release()`. */
  hold(): void;
  close(): Promise<void>;
}

/**
 * Every chat gets `reply(n)` (n counts chat requests from 1), after `delayMs` (the
 * bench holds agent runs at the model this way, so only accepting is measured), or
 * with `hold` once the test calls `release()` (a run stays in flight until then).
 */
export async function startFakeModel(
  reply: (n: number) => string = (n) => `fake reply ${n}`,
  opts: { delayMs?: number; hold?: boolean } = {},
): Promise<FakeModel> {
  const requests: ModelRequest[] = [];
  let chats = 0;
  /** Answers waiting for `release()` (undefined once released, or without `hold`). */
  let held: Array<() => void> | undefined = opts.hold ? [] : undefined;
  /** One chat completion: streamed as server-sent events when asked (OpenClaw asks), else one JSON body. */
  const complete = (body: string, res: http.ServerResponse): void => {
    const parsed = JSON.parse(body || "{}") as { model?: string; stream?: boolean };
    const text = reply(++chats);
    const base = { id: `chatcmpl-${chats}`, created: Math.floor(Date.now() / 1000), model: parsed.model ?? "fake-1" };
    const usage = { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 };
    if (parsed.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
      event({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: { role: "assistant", content: text }, finish_reason: null }] });
      event({ ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta: {}, finish_reason: "stop" }], usage });
      res.end("data: [DONE]\n\n");
      return;
    }
    res.setHeader("content-type", "application/json");
    res.end(
      JSON.stringify({
        ...base,
        object: "chat.completion",
        choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
        usage,
      }),
    );
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const path = (req.url ?? "").split("?")[0]!;
      requests.push({ method: req.method ?? "", path, body });
      if (req.method === "GET" && path.endsWith("/models")) {
        res.setHeader("content-type", "application/json");
        res.end(JSON.stringify({ object: "list", data: [{ id: "fake-1", object: "model", owned_by: "e2e" }] }));
        return;
      }
      if (req.method !== "POST" || !path.endsWith("/chat/completions")) {
        res.statusCode = 404;
        res.end("{}");
        return;
      }
      if (held) {
        held.push(() => {
          if (!res.destroyed) complete(body, res);
        });
        return;
      }
      if (!opts.delayMs) return complete(body, res);
      const timer = setTimeout(() => complete(body, res), opts.delayMs);
      res.once("close", () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    chatsContaining: (text) => requests.filter((r) => r.path.endsWith("/chat/completions") && r.body.includes(text)),
    release: () => {
      const answers = held ?? [];
      held = undefined;
      for (const answer of answers) answer();
    },
    hold: () => {
      held ??= [];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // OpenClaw keeps its connections to the model alive: close them, or close() waits for them.
        server.closeAllConnections();
      }),
  };
}
