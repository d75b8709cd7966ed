/**
 * The hooks route's one handler (host API 2.0 `HttpRouteHandler`): node:http's request and
 * response, as a host hands them over, in; the core's Answer written out. It builds the
 * HookRequest once (`hookRequestOf`), hands the core (src/intake/hook-pipeline.ts) a body
 * reader and a way to learn that the client went away, and writes the Answer. The stages,
 * what each may answer and where each concern lives are drawn once in docs/architecture.md
 * "Request lifecycle". Every response carries `X-Request-Id`. Inside OpenClaw it is the
 * route's handler itself; the embedded gateway mounts it under `hooks.path`.
 *
 * @example
 *   api.registerHttpRoute({ prefix: config.path, handler: createHookHandler(deps) });
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpRouteHandler } from "../../host-contract/http-route";
import { clientKey } from "../client-key";
import { createHookPipeline, unexpectedAnswer, type Handled, type HookPipelineDeps } from "../hook-pipeline";
import { hookRequestOf, type Answer } from "../hook-request";
import { REQUEST_ID_HEADER, resolveRequestId } from "../request-id";
import { flatHeaders } from "../request-input";
import type { RequestRecord } from "../request-reporter";
import { lingerAfterResponse } from "./linger";
import { readBody } from "./read-body";
import { renderHookResponse } from "./render";

/** Writes the answer: JSON (or a challenge's text); an unread body is never buffered (the connection closes, see linger.ts). */
function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: Answer): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (answer.status >= 400 && !req.complete) {
    res.setHeader("Connection", "close");
    lingerAfterResponse(req);
  }
  if (answer.text === undefined) {
    renderHookResponse(res, answer);
    return;
  }
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.statusCode = answer.status;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(answer.text));
  res.end(answer.text);
}

export function createHookHandler(deps: HookPipelineDeps): HttpRouteHandler {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const idGen = deps.idGen ?? randomUUID;
  const pipeline = createHookPipeline(deps);
  const body = { limit: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs };

  return function handleHookRequest(req, res, context) {
    const requestId = resolveRequestId(req.headers["x-request-id"], idGen);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const line = { requestId, method: req.method ?? "GET", url: req.url ?? "/", headers: flatHeaders(req.headers), client: clientKey(context.clientAddress) };
    const request = hookRequestOf(line, config.path);
    const record: RequestRecord = {
      requestId,
      startedAt: clock(),
      startedHr: performance.now(),
      client: request.client,
      method: request.method,
      url: request.url,
      hook: request.hook,
      reported: false,
    };
    // The client may go away while the request is handled (a Prefer: wait sender giving up):
    // what the request did is then reported once the pipeline has answered, not dropped.
    let handling = true;
    let gone = false;
    res.once("close", () => {
      if (res.writableFinished) return;
      if (handling) gone = true;
      else pipeline.aborted(record);
    });
    // A client already gone (while a large body waited a turn before its dispatch) stops the wait at once.
    const connection = { readBody: () => readBody(req, body), onClientGone: (stop: () => void) => (gone ? stop() : void res.once("close", stop)) };
    pipeline
      .handle(request, connection)
      .catch((e: unknown): Handled => {
        const cause = e instanceof Error ? { error: e.message, stack: e.stack } : { error: String(e) };
        logger.error("hook request failed with an unexpected error", { requestId, hook: request.hook, ...cause });
        return { answer: unexpectedAnswer() };
      })
      .then((handled) => {
        handling = false;
        if (gone) return pipeline.clientGone(request, record, handled);
        pipeline.report(record, handled);
        res.once("finish", () => pipeline.finished(request, record, handled));
        writeAnswer(req, res, handled.answer);
      });
  };
}
