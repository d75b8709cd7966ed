/**
 * The hooks route's Express adapter (SPEC §4.1): builds the HookRequest once,
 * hands the core (src/http/pipeline/) a body reader, and writes the Answer. The
 * stages, what each may answer and where each concern lives are drawn once in
 * docs/architecture.md "Request lifecycle". Every response carries `X-Request-Id`.
 *
 * @example
 *   app.use(config.path, createHooksRouter({ config, runtime, logger, emitter, dispatcher }));
 */
import { randomUUID } from "node:crypto";
import type { Request, RequestHandler, Response } from "express";
import { redactText } from "../host-contract/redaction";
import { lingerAfterResponse } from "./body/linger";
import { readBody } from "./body/read-body";
import { clientKey } from "./client-key";
import { hookName, parseHookRoute } from "./hook-route";
import { createHookPipeline, unexpectedAnswer, type Handled, type HookPipelineDeps } from "./pipeline/hook-pipeline";
import type { Answer, HookRequest } from "./pipeline/hook-request";
import { renderHookResponse } from "./render";
import { REQUEST_ID_HEADER, resolveRequestId } from "./request-id";
import { flatHeaders, flatQuery } from "./request-input";
import type { RequestRecord } from "./request-reporter";

export type HooksRouterDeps = HookPipelineDeps;

/** The request as the core reads it, built once. */
function hookRequest(req: Request, hooksPath: string, requestId: string): HookRequest {
  const route = parseHookRoute(req.path, hooksPath);
  return {
    requestId,
    method: req.method,
    route,
    ...(route.ok ? { hook: hookName(route.route) } : {}),
    headers: flatHeaders(req.headers),
    query: flatQuery(req.originalUrl),
    rawUrl: req.originalUrl,
    url: redactText(req.originalUrl),
    client: clientKey(req),
  };
}

/** Writes the answer: JSON (or a challenge's text); an unread body is never buffered (the connection closes, see linger.ts). */
function writeAnswer(req: Request, res: Response, answer: Answer): void {
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
  res.status(answer.status).type("text/plain; charset=utf-8").send(answer.text);
}

export function createHooksRouter(deps: HooksRouterDeps): RequestHandler {
  const { config, logger } = deps;
  const clock = deps.clock ?? Date.now;
  const idGen = deps.idGen ?? randomUUID;
  const pipeline = createHookPipeline(deps);
  const body = { limit: config.maxBodyBytes, timeoutMs: config.bodyTimeoutMs };

  return function hooksRouter(req, res, next) {
    // `/HOOKS` is not ours (the mount matched case-insensitively): the host's next handler answers.
    if (req.baseUrl !== config.path && req.baseUrl.toLowerCase() === config.path.toLowerCase()) return next();
    const requestId = resolveRequestId(req.headers["x-request-id"], idGen);
    res.setHeader(REQUEST_ID_HEADER, requestId);
    const hr = hookRequest(req, config.path, requestId);
    const rec: RequestRecord = { requestId, startedAt: clock(), startedHr: performance.now(), client: hr.client, method: hr.method, url: hr.url, hook: hr.hook, reported: false };
    // The client may go away while the request is handled (a Prefer: wait sender giving up):
    // what the request did is then reported once the pipeline has answered, not dropped.
    let handling = true;
    let gone = false;
    res.once("close", () => {
      if (res.writableFinished) return;
      if (handling) gone = true;
      else pipeline.aborted(rec);
    });
    // A client already gone (while a large body waited a turn before its dispatch) stops the wait at once.
    const io = { readBody: () => readBody(req, body), onClientGone: (stop: () => void) => (gone ? stop() : void res.once("close", stop)) };
    pipeline
      .handle(hr, io)
      .catch((e: unknown): Handled => {
        const cause = e instanceof Error ? { error: e.message, stack: e.stack } : { error: String(e) };
        logger.error("hook request failed with an unexpected error", { requestId, hook: hr.hook, ...cause });
        return { answer: unexpectedAnswer() };
      })
      .then((handled) => {
        handling = false;
        if (gone) return pipeline.clientGone(hr, rec, handled);
        pipeline.report(rec, handled);
        res.once("finish", () => pipeline.finished(hr, rec, handled));
        writeAnswer(req, res, handled.answer);
      });
  };
}
